package ext

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/tool"
)

// providerFixture runs extensions with a real model registry behind
// registerProvider.
func providerFixture(t *testing.T, exts ...string) (*fixture, *models.Registry, []error) {
	t.Helper()
	dir := testAgentDir(t)
	reg, err := models.NewRegistry(models.Options{AuthJSON: filepath.Join(t.TempDir(), "auth.json"),
		Getenv: func(k string) string { return map[string]string{"SCRIPTED_KEY": "sk-scripted"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{seam: hooks.New(), cmds: commands.New()}
	f.tools, _ = tool.NewRegistry()
	f.seam.OnError = func(e *hooks.HandlerError) { f.mu.Lock(); f.errs = append(f.errs, e); f.mu.Unlock() }
	var paths []string
	for _, e := range exts {
		p, _ := filepath.Abs(filepath.Join("testdata", e))
		paths = append(paths, p)
	}
	f.m = Start(context.Background(), Options{Paths: paths, AgentDir: dir, CacheDir: filepath.Join(dir, "cache"), Cwd: t.TempDir(),
		Mode: "print", Environ: os.Environ(), Hooks: f.seam, Commands: f.cmds, Tools: f.tools, Providers: reg})
	t.Cleanup(f.m.Close)
	return f, reg, f.m.Wait(context.Background())
}

// streamed is one request through the extension's streamSimple.
type streamed struct {
	types []string
	msg   *llm.AssistantMessage
}

func streamSay(t *testing.T, m *Manager, reg *models.Registry, ctx context.Context, say string, edit func(*llm.Request), onEvent func(llm.AssistantEvent)) streamed {
	t.Helper()
	model := reg.Find("scripted", "echo")
	if model == nil {
		t.Fatal("scripted/echo is not in the registry")
	}
	c := m.streamClient(model)
	if c == nil {
		t.Fatal("no stream client for the scripted api")
	}
	key, headers, err := reg.ResolveAuth(ctx, model, "")
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: model, APIKey: key, Headers: headers, SystemPrompt: "be brief",
		Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent(say)}},
		Tools:    []llm.ToolSpec{{Name: "lookup", Description: "finds", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	if edit != nil {
		edit(req)
	}
	var out streamed
	var mu sync.Mutex
	out.msg = c.Stream(ctx, req, func(ev llm.AssistantEvent) {
		mu.Lock()
		out.types = append(out.types, ev.Type)
		mu.Unlock()
		if onEvent != nil {
			onEvent(ev)
		}
	})
	return out
}

func TestProviderStream(t *testing.T) {
	f, reg, errs := providerFixture(t, "provider.ts")
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs)
	}
	ctx := context.Background()
	model := reg.Find("scripted", "echo")
	if model == nil || model.API != "scripted-api" || model.ContextWindow != 32000 || !model.Reasoning {
		t.Fatalf("registry model %+v", model)
	}
	avail := false
	for _, m := range reg.Available(ctx) {
		avail = avail || m.Provider == "scripted"
	}
	if !avail {
		t.Error("scripted is not available with SCRIPTED_KEY set")
	}

	s := streamSay(t, f.m, reg, ctx, "hello", nil, nil)
	if got := strings.Join(s.types, ","); got != "start,text_start,text_delta,text_delta,text_delta,text_delta,text_end,done" {
		t.Errorf("events %s", got)
	}
	if s.msg.StopReason != llm.StopStop || s.msg.Content.PlainText() != "echo: hello" || s.msg.Usage.Input != 10 || s.msg.Usage.Output != 2 ||
		math.Abs(s.msg.Usage.Cost.Total-14e-6) > 1e-12 || s.msg.Provider != "scripted" || s.msg.API != "scripted-api" {
		t.Errorf("message %+v", s.msg)
	}

	s = streamSay(t, f.m, reg, ctx, "options", func(r *llm.Request) { r.ThinkingLevel = llm.ThinkingHigh }, nil)
	var opts map[string]any
	if err := json.Unmarshal([]byte(s.msg.Content.PlainText()), &opts); err != nil {
		t.Fatalf("options answer %q: %v", s.msg.Content.PlainText(), err)
	}
	if opts["apiKey"] != "sk-scripted" || opts["system"] != "be brief" || opts["model"] != "echo" || opts["baseUrl"] != "http://scripted.invalid" ||
		opts["reasoning"] != "high" || opts["aborted"] != false || len(opts["tools"].([]any)) != 1 {
		t.Errorf("the stream saw %v", opts)
	}

	s = streamSay(t, f.m, reg, ctx, "think", nil, nil)
	if th, ok := s.msg.Content[0].(*llm.ThinkingContent); !ok || th.Thinking != "pondering" || th.ThinkingSignature != "sig-1" || s.msg.Content.PlainText() != "answer" {
		t.Errorf("thinking message %+v", s.msg.Content)
	}

	s = streamSay(t, f.m, reg, ctx, "tool", nil, nil)
	calls := s.msg.ToolCalls()
	if s.msg.StopReason != llm.StopToolUse || len(calls) != 1 || calls[0].ID != "call-1" || calls[0].Name != "lookup" || !jsonEqual(calls[0].Arguments, json.RawMessage(`{"q":"relay"}`)) {
		t.Errorf("tool call message %+v %v", s.msg, calls)
	}

	s = streamSay(t, f.m, reg, ctx, "final-only", nil, nil)
	if s.msg.Content.PlainText() != "all at once" || !strings.Contains(strings.Join(s.types, ","), "text_start,text_delta,text_end,done") {
		t.Errorf("final-only: %v %q", s.types, s.msg.Content.PlainText())
	}

	s = streamSay(t, f.m, reg, ctx, "error", nil, nil)
	if s.msg.StopReason != llm.StopError || s.msg.ErrorMessage != "429 rate limit exceeded" || s.msg.Err == nil || s.msg.Err.Kind != llm.ErrRateLimit {
		t.Errorf("error message %+v (err %+v)", s.msg, s.msg.Err)
	}

	s = streamSay(t, f.m, reg, ctx, "throw", nil, nil)
	if s.msg.StopReason != llm.StopError || !strings.Contains(s.msg.ErrorMessage, "no credentials for scripted") || !strings.Contains(s.msg.ErrorMessage, "provider.ts") {
		t.Errorf("throw: %+v", s.msg)
	}

	// Abort: ctx ends while the extension waits; its signal fires.
	actx, cancel := context.WithCancel(ctx)
	s = streamSay(t, f.m, reg, actx, "hang", nil, func(ev llm.AssistantEvent) {
		if ev.Type == llm.EventTextEnd {
			cancel()
		}
	})
	if s.msg.StopReason != llm.StopAborted || s.msg.Content.PlainText() != "waiting" {
		t.Errorf("aborted stream: %+v", s.msg)
	}
	// A stream that stops making progress ends at the idle timeout.
	s = streamSay(t, f.m, reg, ctx, "hang", func(r *llm.Request) { r.IdleTimeout = 200 * time.Millisecond }, nil)
	if s.msg.StopReason != llm.StopError || !strings.Contains(s.msg.ErrorMessage, "no progress from provider scripted") {
		t.Errorf("idle stream: %+v", s.msg)
	}
}

func TestProviderRegisterAtRunTime(t *testing.T) {
	f, reg, errs := providerFixture(t, "provider.ts")
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs)
	}
	ctx := context.Background()
	run := func(name string) {
		c, ok := f.cmds.Get(name)
		if !ok {
			t.Fatalf("/%s not registered", name)
		}
		if _, err := c.Run(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	orig := reg.Find("anthropic", "claude-sonnet-4-5").BaseURL
	run("proxy-anthropic")
	if got := reg.Find("anthropic", "claude-sonnet-4-5").BaseURL; got != "https://proxy.invalid" {
		t.Errorf("after registerProvider(anthropic, {baseUrl}) the base URL is %q", got)
	}
	run("drop-scripted")
	if reg.Find("scripted", "echo") != nil || f.m.streamClient(&llm.Model{API: "scripted-api"}) != nil {
		t.Error("unregisterProvider left the provider or its stream")
	}
	if got := reg.Find("anthropic", "claude-sonnet-4-5").BaseURL; got != "https://proxy.invalid" {
		t.Errorf("unregistering scripted touched anthropic: %q", got)
	}
	f.m.Close()
	_ = orig
}

func TestProviderHostCrashMidStream(t *testing.T) {
	f, reg, errs := providerFixture(t, "provider.ts")
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs)
	}
	s := streamSay(t, f.m, reg, context.Background(), "crash", nil, nil)
	if s.msg.StopReason != llm.StopError || !strings.Contains(s.msg.ErrorMessage, "extension host exited mid-stream") || s.msg.Content.PlainText() != "partial" {
		t.Errorf("crash: %+v", s.msg)
	}
	// The restarted host registers the provider again.
	deadline := time.Now().Add(time.Minute)
	for {
		if reg.Find("scripted", "echo") != nil && f.m.streamClient(reg.Find("scripted", "echo")) != nil {
			if s := streamSay(t, f.m, reg, context.Background(), "again", nil, nil); s.msg.Content.PlainText() == "echo: again" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the provider did not come back after the host restarted")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestProviderBadConfig(t *testing.T) {
	f, reg, errs := providerFixture(t, "provider-bad.ts")
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`provider-bad.ts: registerProvider "nokey": apiKey: required when defining models`,
		`provider-bad.ts: registerProvider "badwindow": models[0].contextWindow: expected a number, got string`,
		`provider-bad.ts: registerProvider "noapi": api: required when registering streamSimple`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("errors lack %q:\n%s", want, all)
		}
	}
	if reg.Find("nokey", "m") != nil || reg.Find("badwindow", "m") != nil || reg.Find("noapi", "m") != nil {
		t.Error("a refused provider reached the registry")
	}
	if _, ok := f.tools.Get("still_here"); !ok {
		t.Error("the extension's other registrations were dropped")
	}
}
