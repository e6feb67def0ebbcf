package app

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

	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/export"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/session"
)

// BugTranscript says what of the conversation goes into a /bug report.
type BugTranscript string

const (
	// BugTranscriptOmit leaves the conversation out.
	BugTranscriptOmit BugTranscript = "omit"
	// BugTranscriptInclude adds the session as session.jsonl.
	BugTranscriptInclude BugTranscript = "include"
	// BugTranscriptSummary sends the conversation to the current model and
	// adds only its summary (summary.md).
	BugTranscriptSummary BugTranscript = "summary"
)

// Texts the TUI shows while asking for /bug options.
const (
	BugDisclaimer = "The report is a zip archive written to the current directory for you to inspect and share. " +
		"It holds your relay version, operating system, terminal, the current model and provider configuration " +
		"(without API keys or header values), settings, and the provider errors recorded in this session."
	BugTranscriptNote = "The transcript holds your messages, model output, tool calls and their results, " +
		"including file contents and command output read during this session."
	BugSummaryNote = "The transcript is sent to the current model's provider with your credentials; " +
		"only the summary it writes goes into the report."
)

// BugCustomType is the session entry recording that a report was written.
const BugCustomType = "relay.bug-report"

// BugOptions are the choices of /bug.
type BugOptions struct {
	Description string
	Transcript  BugTranscript // "" = omit
	// Dir is where the zip is written ("" = the runtime's cwd).
	Dir string
}

// BugResult is a written report.
type BugResult struct {
	Path  string
	ID    string
	Files []string // names inside the zip
}

// Text is the status message for the TUI.
func (b BugResult) Text() string {
	return "Bug report exported to: " + b.Path + "\nReport ID: " + b.ID
}

// BugReport implements /bug: it writes relay-bug-report-<id>.zip with
// report.json (environment, model and provider configuration, settings),
// diagnostics.json (failed assistant turns) and, as chosen, session.jsonl
// or summary.md. Credential values never enter the archive: configuration
// is redacted by key, auth.json is reduced to provider names and types,
// only the names of environment variables are listed, and every file is
// finally scrubbed of each known secret value.
func (r *Runtime) BugReport(ctx context.Context, opts BugOptions) (BugResult, error) {
	mode := opts.Transcript
	switch mode {
	case "":
		mode = BugTranscriptOmit
	case BugTranscriptOmit, BugTranscriptInclude, BugTranscriptSummary:
	default:
		return BugResult{}, fmt.Errorf("bug report: unknown transcript option %q", mode)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return BugResult{}, fmt.Errorf("bug report: %w", err)
	}
	created := r.cfg.Now().UTC().Format(time.RFC3339Nano)
	hint := strings.TrimSpace(opts.Description)

	var summary string
	if mode == BugTranscriptSummary {
		if summary, err = r.bugSummary(ctx, hint); err != nil {
			return BugResult{}, fmt.Errorf("Failed to write bug report summary: %w", err)
		}
	}

	type file struct {
		name string
		data []byte
	}
	report, secrets := r.bugMetadata(id.String(), created, hint, mode)
	files := []file{
		{"report.json", indentJSON(report)},
		{"diagnostics.json", indentJSON(r.bugDiagnostics())},
	}
	if mode == BugTranscriptInclude {
		data, err := export.JSONL(r.Session())
		if err != nil {
			return BugResult{}, fmt.Errorf("bug report: transcript: %w", err)
		}
		files = append(files, file{"session.jsonl", data})
	}
	if summary != "" {
		files = append(files, file{"summary.md", []byte(strings.TrimRight(summary, "\n") + "\n")})
	}

	dir := opts.Dir
	if dir == "" {
		dir = r.cfg.Cwd
	}
	path := filepath.Join(dir, "relay-bug-report-"+id.String()+".zip")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return BugResult{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	zw := zip.NewWriter(f)
	res := BugResult{Path: path, ID: id.String()}
	mtime := r.cfg.Now()
	for _, fl := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fl.name, Method: zip.Deflate, Modified: mtime})
		if err == nil {
			_, err = w.Write(scrub(fl.data, secrets))
		}
		if err != nil {
			zw.Close()
			f.Close()
			os.Remove(path)
			return BugResult{}, fmt.Errorf("Failed to write bug report: %w", err)
		}
		res.Files = append(res.Files, fl.name)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		os.Remove(path)
		return BugResult{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return BugResult{}, fmt.Errorf("Failed to write bug report: %w", err)
	}
	_, _ = r.Session().AppendCustom(BugCustomType, map[string]any{
		"id": res.ID, "createdAt": created, "hint": nullable(hint),
		"sessionIncluded": mode == BugTranscriptInclude, "summaryIncluded": summary != "",
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
func (r *Runtime) bugMetadata(id, created, hint string, mode BugTranscript) (map[string]any, []string) {
	agent := config.Agent{Dir: r.cfg.AgentDir}
	sec := secretSet{}
	sess := r.Session()
	sessInfo := map[string]any{
		"id": sess.SessionID(), "included": mode == BugTranscriptInclude, "summaryIncluded": mode == BugTranscriptSummary,
		"messageCount": len(r.ContextMessages()), "entryCount": sess.EntryCount(), "persisted": sess.IsPersisted(),
	}
	if mode == BugTranscriptInclude {
		sessInfo["cwd"] = sess.Cwd()
	}
	rep := map[string]any{
		"schemaVersion": 1, "id": id, "createdAt": created, "hint": nullable(hint),
		"environment":   bugEnvironment(r.cfg.Env, sec),
		"session":       sessInfo,
		"thinkingLevel": string(r.ThinkingLevel()),
		"harnessCore":   r.hooks.ToolCall.Has(),
		"activeTools":   r.ActiveTools(),
	}
	if m := r.Model(); m != nil {
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
	if m := r.Model(); m != nil {
		if src, ok := r.cfg.Models.(interface{ AuthSource(string) string }); ok {
			providers["currentAuthSource"] = src.AuthSource(m.Provider)
		}
	}
	providers["modelsJson"] = redactedConfigFile(agent.Models(), sec)
	rep["providers"] = providers
	rep["settings"] = map[string]any{
		"global":  redactedConfigFile(agent.Settings(), sec),
		"project": redactedConfigFile(config.Project{Cwd: r.cfg.Cwd}.Settings(), sec),
	}
	return rep, sec.list()
}

// bugEnvironment describes the machine and terminal; of environment
// variables only names are listed.
func bugEnvironment(e config.Env, sec secretSet) map[string]any {
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
		"version": relayVersion(), "goVersion": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
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

// authSummary reduces auth.json to provider names and credential types;
// every other value is remembered as a secret.
func authSummary(path string, sec secretSet) any {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return []any{}
	}
	if err != nil {
		return map[string]string{"error": "unreadable: " + errKind(err)}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return map[string]string{"error": "not valid JSON"}
	}
	type entry struct {
		Provider string `json:"provider"`
		Type     string `json:"type"`
	}
	out := []entry{}
	for _, p := range sortedKeys(raw) {
		var v any
		_ = json.Unmarshal(raw[p], &v)
		typ := "unknown"
		if o, ok := v.(map[string]any); ok {
			if t, ok := o["type"].(string); ok {
				typ = t
			}
			delete(o, "type")
		}
		collectStrings(v, sec)
		out = append(out, entry{p, typ})
	}
	return out
}

// errKind is an error without its path.
func errKind(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func collectStrings(v any, sec secretSet) {
	switch x := v.(type) {
	case string:
		sec.add(x)
	case map[string]any:
		for _, c := range x {
			collectStrings(c, sec)
		}
	case []any:
		for _, c := range x {
			collectStrings(c, sec)
		}
	}
}

// redactedConfigFile reads a JSON (with comments) config file and returns
// it with credential-like values replaced; nil when absent.
func redactedConfigFile(path string, sec secretSet) any {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return map[string]string{"error": "unreadable: " + errKind(err)}
	}
	var v any
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	if err := json.Unmarshal(stripJSONComments(data), &v); err != nil {
		// The raw text could hold keys: report only that it is broken.
		return map[string]string{"error": "not valid JSON: " + err.Error()}
	}
	return redactValue("", v, sec)
}

const redacted = "<redacted>"

// redactValue copies v, replacing the values of credential-like keys and
// of every header map, and stripping credentials from URLs.
func redactValue(key string, v any, sec secretSet) any {
	switch v.(type) {
	case nil, bool, float64:
		// Flags and numbers under credential-like names (authHeader,
		// authorizationGate) hold no secret.
	default:
		if sensitiveKey(key) {
			collectStrings(v, sec)
			return redacted
		}
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		headers := strings.EqualFold(key, "headers")
		for k, c := range x {
			if headers && c != nil {
				collectStrings(c, sec)
				out[k] = redacted
				continue
			}
			out[k] = redactValue(k, c, sec)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = redactValue("", c, sec)
		}
		return out
	case string:
		if r := redactURL(x); r != x {
			sec.add(x)
			return r
		}
		return x
	}
	return v
}

// sensitiveKey reports names that hold credentials: apiKey, api_key,
// accessToken, CLIENT_SECRET, password, authorization, cookie ...
func sensitiveKey(key string) bool {
	if key == "" {
		return false
	}
	var b strings.Builder
	rs := []rune(key)
	for i, c := range rs {
		if i > 0 && c >= 'A' && c <= 'Z' {
			if p := rs[i-1]; (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') {
				b.WriteByte('_')
			}
		}
		b.WriteRune(c)
	}
	words := strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, w := range words {
		switch w {
		case "apikey", "secret", "token", "password", "passwd", "credential", "credentials", "authorization", "cookie", "auth":
			return true
		case "api":
			if i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		case "key":
			if len(words) == 1 || (i > 0 && (words[i-1] == "access" || words[i-1] == "private")) {
				return true
			}
		}
	}
	return false
}

// redactURL removes user info and credential-like query parameters from
// an absolute URL; other strings come back unchanged.
func redactURL(s string) string {
	i := strings.Index(s, "://")
	if i <= 0 || strings.ContainsAny(s[:i], " \t\n/") {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	tail := rest[end:]
	if q := strings.Index(tail, "?"); q >= 0 {
		path, query := tail[:q], tail[q+1:]
		frag := ""
		if h := strings.Index(query, "#"); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		params := strings.Split(query, "&")
		for j, p := range params {
			if k, _, ok := strings.Cut(p, "="); ok && sensitiveKey(k) {
				params[j] = k + "=" + redacted
			}
		}
		tail = path + "?" + strings.Join(params, "&") + frag
	}
	return s[:i+3] + host + tail
}

// stripJSONComments removes // and /* */ comments and trailing commas
// outside strings, so JSONC config files parse as JSON.
func stripJSONComments(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i++
		case c == '}' || c == ']':
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// secretSet collects credential values to scrub from the archive.
type secretSet map[string]bool

// add remembers v; very short values are ignored (scrubbing "1" or "true"
// would mangle the report and such values protect nothing).
func (s secretSet) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) >= 6 {
		s[v] = true
	}
}

// list returns the values longest first, so a secret containing another
// is replaced whole.
func (s secretSet) list() []string {
	out := make([]string, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// scrub replaces each secret, raw and JSON-escaped, with <redacted>.
func scrub(data []byte, secrets []string) []byte {
	if len(secrets) == 0 {
		return data
	}
	s := string(data)
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, redacted)
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
				s = strings.ReplaceAll(s, esc, redacted)
			}
		}
	}
	return []byte(s)
}

// bugDiagnostics lists the failed assistant turns of the whole session
// (every branch) without conversation content.
func (r *Runtime) bugDiagnostics() map[string]any {
	s := r.Session()
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
func (r *Runtime) bugSummary(ctx context.Context, hint string) (string, error) {
	model := r.Model()
	if model == nil {
		return "", ErrNoModel
	}
	var visible []llm.Message
	var failures []string
	for _, m := range r.ContextMessages() {
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
		SessionID: r.Session().SessionID(), ThinkingLevel: llm.ThinkingOff,
		Messages: []llm.Message{&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: b.String()}), Timestamp: r.now()}},
	}
	if lvl := r.ThinkingLevel(); model.Reasoning && lvl != "" && lvl != llm.ThinkingOff {
		req.ThinkingLevel = lvl
	}
	reply := r.summarizer("bug_report", "")(ctx, req)
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
