package bugreport

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/export"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/session"
)

// Transcript says what of the conversation goes into a /bug report.
type Transcript string

const (
	// TranscriptOmit leaves the conversation out.
	TranscriptOmit Transcript = "omit"
	// TranscriptInclude adds the session as session.jsonl.
	TranscriptInclude Transcript = "include"
	// TranscriptSummary sends the conversation to the current model and
	// adds only its summary (summary.md).
	TranscriptSummary Transcript = "summary"
)

// Texts the TUI shows while asking for /bug options.
const (
	Disclaimer = "The report is a zip archive written to the current directory for you to inspect and share. " +
		"It holds your relay version, operating system, terminal, the current model and provider configuration " +
		"(without API keys or header values), settings, and the provider errors recorded in this session."
	TranscriptNote = "The transcript holds your messages, model output, tool calls and their results, " +
		"including file contents and command output read during this session."
	SummaryNote = "The transcript is sent to the current model's provider with your credentials; " +
		"only the summary it writes goes into the report."
)

// CustomType is the session entry recording that a report was written.
const CustomType = "relay.bug-report"

// Request are the choices of /bug.
type Request struct {
	Description string
	Transcript  Transcript // "" = omit
	// Dir is where the zip is written ("" = the runtime's cwd).
	Dir string
}

// Result is a written report.
type Result struct {
	Path  string
	ID    string
	Files []string // names inside the zip
}

// Text is the status message for the TUI.
func (b Result) Text() string {
	return "Bug report exported to: " + b.Path + "\nReport ID: " + b.ID
}

// BugReport implements /bug: it writes relay-bug-report-<id>.zip with
// report.json (environment, model and provider configuration, settings),
// diagnostics.json (failed assistant turns) and, as chosen, session.jsonl
// or summary.md. Credential values never enter the archive: configuration
// is redacted by key, auth.json is reduced to provider names and types,
// only the names of environment variables are listed, and every file is
// finally scrubbed of each known secret value.
func (f *Feature) Write(ctx context.Context, opts Request) (Result, error) {
	mode := opts.Transcript
	switch mode {
	case "":
		mode = TranscriptOmit
	case TranscriptOmit, TranscriptInclude, TranscriptSummary:
	default:
		return Result{}, fmt.Errorf("bug report: unknown transcript option %q", mode)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Result{}, fmt.Errorf("bug report: %w", err)
	}
	created := f.o.now().UTC().Format(time.RFC3339Nano)
	hint := strings.TrimSpace(opts.Description)

	var summary string
	if mode == TranscriptSummary {
		if summary, err = f.summary(ctx, hint); err != nil {
			return Result{}, fmt.Errorf("Failed to write bug report summary: %w", err)
		}
	}

	type file struct {
		name string
		data []byte
	}
	report, secrets := f.metadata(id.String(), created, hint, mode)
	files := []file{
		{"report.json", indentJSON(report)},
		{"diagnostics.json", indentJSON(f.diagnostics())},
	}
	if mode == TranscriptInclude {
		data, err := export.JSONL(f.rt.Session())
		if err != nil {
			return Result{}, fmt.Errorf("bug report: transcript: %w", err)
		}
		files = append(files, file{"session.jsonl", data})
	}
	if summary != "" {
		files = append(files, file{"summary.md", []byte(strings.TrimRight(summary, "\n") + "\n")})
	}

	dir := opts.Dir
	if dir == "" {
		dir = f.o.Cwd
	}
	path := filepath.Join(dir, "relay-bug-report-"+id.String()+".zip")
	zf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Result{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	zw := zip.NewWriter(zf)
	res := Result{Path: path, ID: id.String()}
	mtime := f.o.now()
	for _, fl := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fl.name, Method: zip.Deflate, Modified: mtime})
		if err == nil {
			_, err = w.Write(scrub(fl.data, secrets))
		}
		if err != nil {
			zw.Close()
			zf.Close()
			os.Remove(path)
			return Result{}, fmt.Errorf("Failed to write bug report: %w", err)
		}
		res.Files = append(res.Files, fl.name)
	}
	if err := zw.Close(); err != nil {
		zf.Close()
		os.Remove(path)
		return Result{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	if err := zf.Close(); err != nil {
		os.Remove(path)
		return Result{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	_, _ = f.rt.Session().AppendCustom(CustomType, map[string]any{
		"id": res.ID, "createdAt": created, "hint": nullable(hint),
		"sessionIncluded": mode == TranscriptInclude, "summaryIncluded": summary != "",
		"delivery": "zip", "path": path,
	})
	return res, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func indentJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return append(b, '\n')
}

// bugMetadata builds report.json and collects the secret values found in
// the configuration, for the final scrub.
func (f *Feature) metadata(id, created, hint string, mode Transcript) (map[string]any, []string) {
	agent := config.Agent{Dir: f.o.AgentDir}
	sec := secretSet{}
	sess := f.rt.Session()
	sessInfo := map[string]any{
		"id": sess.SessionID(), "included": mode == TranscriptInclude, "summaryIncluded": mode == TranscriptSummary,
		"messageCount": len(f.rt.ContextMessages()), "entryCount": sess.EntryCount(), "persisted": sess.IsPersisted(),
	}
	if mode == TranscriptInclude {
		sessInfo["cwd"] = sess.Cwd()
	}
	rep := map[string]any{
		"schemaVersion": 1, "id": id, "createdAt": created, "hint": nullable(hint),
		"environment":   bugEnvironment(f.o.Env, f.o.Version, sec),
		"session":       sessInfo,
		"thinkingLevel": string(f.rt.State().ThinkingLevel),
		"harnessCore":   f.seam != nil && f.seam.ToolCall.Has(),
		"activeTools":   f.o.Active.Names(),
	}
	if m := f.rt.State().Model; m != nil {
		rep["model"] = map[string]any{
			"provider": m.Provider, "id": m.ID, "name": m.Name, "api": m.API, "baseUrl": redactURL(m.BaseURL),
			"reasoning": m.Reasoning, "input": m.Input, "contextWindow": m.ContextWindow, "maxTokens": m.MaxTokens,
			"headerNames": sortedKeys(m.Headers),
		}
		for _, v := range m.Headers {
			sec.add(v)
		}
	} else {
		rep["model"] = nil
	}
	providers := map[string]any{"authJson": authSummary(agent.Auth(), sec)}
	if m := f.rt.State().Model; m != nil {
		if f.o.AuthSource != nil {
			providers["currentAuthSource"] = f.o.AuthSource(m.Provider)
		}
	}
	providers["modelsJson"] = redactedConfigFile(agent.Models(), sec)
	rep["providers"] = providers
	rep["settings"] = map[string]any{
		"global":  redactedConfigFile(agent.Settings(), sec),
		"project": redactedConfigFile(config.Project{Cwd: f.o.Cwd}.Settings(), sec),
	}
	return rep, sec.list()
}

// bugEnvironment describes the machine and terminal; of environment
// variables only names are listed.
func bugEnvironment(e config.Env, version string, sec secretSet) map[string]any {
	env := func(k string) any {
		if v := e.Get(k); v != "" {
			return v
		}
		return nil
	}
	var relayVars, providerVars []string
	known := map[string]bool{}
	for _, p := range models.Providers() {
		for _, v := range append(append([]string{}, p.EnvVars...), p.BearerEnvVars...) {
			known[v] = true
		}
	}
	for _, k := range e.Names() {
		v := e.Get(k)
		switch {
		case strings.HasPrefix(k, "RELAY_"):
			relayVars = append(relayVars, k)
		case known[k]:
			providerVars = append(providerVars, k)
		}
		if known[k] || sensitiveKey(k) {
			sec.add(v)
		}
	}
	sort.Strings(relayVars)
	sort.Strings(providerVars)
	shell := ""
	if s := e.Terminal.Shell; s != "" {
		shell = filepath.Base(s)
	}
	return map[string]any{
		"version": version, "goVersion": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
		"osRelease": osRelease(), "shell": shell,
		"terminal": map[string]any{
			"term": env("TERM"), "program": env("TERM_PROGRAM"), "programVersion": env("TERM_PROGRAM_VERSION"),
			"colorterm": env("COLORTERM"), "tmux": e.Terminal.Tmux, "ssh": e.Terminal.SSH, "ci": e.Terminal.CI,
		},
		"relayEnvironmentVariables":    nonNil(relayVars),
		"providerEnvironmentVariables": nonNil(providerVars),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func osRelease() string {
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// bugDiagnostics lists the failed assistant turns of the whole session
// (every branch) without conversation content.
func (f *Feature) diagnostics() map[string]any {
	s := f.rt.Session()
	entries := s.Entries()
	failures := []map[string]any{}
	count := 0
	for _, e := range entries {
		if e.Type != session.TypeMessage || e.Role() != llm.RoleAssistant {
			continue
		}
		m, err := e.Message()
		if err != nil {
			failures = append(failures, map[string]any{"entryId": e.ID, "timestamp": e.Timestamp, "readError": err.Error()})
			continue
		}
		a := m.(*llm.AssistantMessage)
		count++
		if len(a.Diagnostics) == 0 && a.StopReason != llm.StopError && a.StopReason != llm.StopAborted && a.ErrorMessage == "" {
			continue
		}
		f := map[string]any{"entryId": e.ID, "timestamp": e.Timestamp, "provider": a.Provider, "model": a.Model, "api": a.API,
			"stopReason": a.StopReason}
		if a.RawStopReason != "" {
			f["rawStopReason"] = a.RawStopReason
		}
		if a.ErrorMessage != "" {
			f["errorMessage"] = a.ErrorMessage
		}
		if len(a.Diagnostics) > 0 {
			f["diagnostics"] = a.Diagnostics
		} else {
			f["diagnostics"] = []any{}
		}
		failures = append(failures, f)
	}
	var problems []string
	for _, p := range s.Problems() {
		problems = append(problems, fmt.Sprintf("line %d: %s: %s", p.Line, p.Severity, p.Msg))
	}
	return map[string]any{
		"schemaVersion": 1, "sessionId": s.SessionID(), "entryCount": len(entries),
		"assistantMessageCount": count, "assistant": failures, "sessionFileProblems": nonNil(problems),
	}
}

const bugSummarySystem = `You write bug reports about relay, the terminal coding agent the user has been working with. ` +
	`You are given the conversation as a transcript. Describe for the relay developers what the user was trying to do and what went wrong. ` +
	`Do not continue the conversation and do not answer questions from it; output only the report.`

const bugSummaryInstructions = `Write the report in Markdown with these sections:

## Goal
What the user was doing, in a few sentences.

## Problem
What failed: errors, wrong output, hangs, failing tools, surprising behaviour. Quote error messages verbatim.

## Steps to reproduce
A numbered list, as precise as the transcript allows.

## Details
Tools and models involved, files by path, anything that helps reproduce the problem.

Leave out file contents, secrets and credentials; name files by path only. Be factual and brief.`

// bugSummary asks the current model for a report of the conversation.
func (f *Feature) summary(ctx context.Context, hint string) (string, error) {
	model := f.rt.State().Model
	if model == nil {
		return "", app.ErrNoModel
	}
	var visible []llm.Message
	var failures []string
	for _, m := range f.rt.ContextMessages() {
		if a, ok := m.(*llm.AssistantMessage); ok && (a.StopReason == llm.StopError || a.StopReason == llm.StopAborted) {
			if a.ErrorMessage != "" {
				failures = append(failures, string(a.StopReason)+": "+a.ErrorMessage)
			}
			continue
		}
		visible = append(visible, m)
	}
	msgs := llm.ToModelMessages(visible)
	window := model.ContextWindow
	if window <= 0 {
		window = 128000
	}
	budget := window * 6 / 10
	start, used := len(msgs), 0
	for start > 0 {
		n := compaction.EstimateMessage(msgs[start-1])
		if start < len(msgs) && used+n > budget {
			break
		}
		used += n
		start--
	}
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "Only the last %d of %d messages are shown.\n\n", len(msgs)-start, len(msgs))
	}
	b.WriteString("<conversation>\n" + compaction.Serialize(msgs[start:]) + "\n</conversation>\n\n")
	if len(failures) > 0 {
		b.WriteString("<failed-turns>\n" + strings.Join(failures, "\n") + "\n</failed-turns>\n\n")
	}
	if hint != "" {
		b.WriteString("<user-report>\n" + hint + "\n</user-report>\n\n")
	}
	b.WriteString(bugSummaryInstructions)
	maxTokens := 4096
	if model.MaxTokens > 0 && model.MaxTokens < maxTokens {
		maxTokens = model.MaxTokens
	}
	req := &llm.Request{
		Model: model, SystemPrompt: bugSummarySystem, MaxTokens: maxTokens, CacheRetention: llm.CacheNone,
		SessionID: f.rt.Session().SessionID(), ThinkingLevel: llm.ThinkingOff,
		Messages: []llm.Message{&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: b.String()}), Timestamp: f.o.now().UnixMilli()}},
	}
	if lvl := f.rt.State().ThinkingLevel; model.Reasoning && lvl != "" && lvl != llm.ThinkingOff {
		req.ThinkingLevel = lvl
	}
	reply := f.rt.Complete(ctx, "bug_report", req)
	switch reply.StopReason {
	case llm.StopError:
		return "", errors.New(reply.ErrorMessage)
	case llm.StopAborted:
		return "", context.Canceled
	}
	if len(reply.ToolCalls()) > 0 {
		return "", errors.New("the model called a tool instead of writing a summary")
	}
	text := strings.TrimSpace(reply.Text())
	if text == "" {
		return "", errors.New("the summary was empty")
	}
	return text, nil
}
