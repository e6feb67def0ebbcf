package layaauto

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool"
)

type stubTool struct {
	spec llm.ToolSpec
	x    tool.Exposure
}

func (s *stubTool) Spec() llm.ToolSpec      { return s.spec }
func (s *stubTool) Exposure() tool.Exposure { return s.x }
func (s *stubTool) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Text("ok")
}

func stub(name, desc string, x tool.Exposure) *stubTool {
	return &stubTool{spec: llm.ToolSpec{Name: name, Description: desc, Parameters: json.RawMessage(`{"type":"object"}`)}, x: x}
}

// laya.toolRetrieval activates the deferred tools a request matches (at
// most N) and puts the set back before the next request is planned.
func TestToolRetrieval(t *testing.T) {
	reg, err := tool.NewRegistry(stub("read", "Read a file", tool.ExposeDirect),
		stub("mcp__gh__search_issues", "Search GitHub issues by text and label", tool.ExposeDeferred),
		stub("mcp__gh__create_pull_request", "Open a GitHub pull request", tool.ExposeDeferred),
		stub("mcp__db__query", "Run a SQL query on the analytics database", tool.ExposeDeferred),
		stub("mcp__hidden__x", "Search GitHub issues secretly", tool.ExposeHidden))
	if err != nil {
		t.Fatal(err)
	}
	st := settings.Defaults()
	st.Laya.BaseURL = ""
	st.Laya.Classifier = "rules"
	st.Laya.Autostart = false
	st.Laya.ToolRetrieval = 1
	st.Laya.ToolRetrievalTelemetry = true
	fc := &apptest.FakeClient{Replies: []apptest.Reply{apptest.Call("mcp__gh__search_issues", `{}`), apptest.Say("done"), apptest.Say("done")}}
	agentDir := t.TempDir()
	active := tool.NewActive([]string{"read"})
	d := New(Options{Settings: st, AgentDir: agentDir, Cwd: t.TempDir(), Tools: reg, Active: active}, newLayaCatalog(fc, "anthropic"))
	seam := hooks.New()
	rt, err := app.New(app.Config{Hooks: seam, Cwd: t.TempDir(), AgentDir: t.TempDir(), Session: session.InMemory("/p"), Models: d.Models(),
		Model: d.Model(laya.AutoModel()), NoContext: true, Tools: reg, Active: active})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(rt, seam, commands.New()); err != nil {
		t.Fatal(err)
	}
	if err := rt.Prompt(context.Background(), "Search the GitHub issues for the login regression", nil); err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, s := range fc.Reqs[0].Tools {
		declared = append(declared, s.Name)
	}
	if !slices.Equal(declared, []string{"read", "mcp__gh__search_issues"}) {
		t.Errorf("declared tools %v, want read and the one retrieved", declared)
	}
	if err := rt.Prompt(context.Background(), "What does main.go do?", nil); err != nil {
		t.Fatal(err)
	}
	if got := active.Names(); !slices.Equal(got, []string{"read"}) {
		t.Errorf("after the next request: active %v, want the baseline", got)
	}
	// laya.toolRetrievalTelemetry: counts only, one line per request.
	data, err := os.ReadFile(laya.ToolRetrievalPath(filepath.Join(agentDir, "laya")))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"candidateCount":3,"retrievedCount":1,"invokedCount":1,"invokedRetrievedCount":1}`) ||
		!strings.Contains(lines[1], `"candidateCount":3,"retrievedCount":0,"invokedCount":0,"invokedRetrievedCount":0}`) {
		t.Errorf("tool-retrieval.jsonl:\n%s", data)
	}
	if strings.Contains(string(data), "GitHub") || strings.Contains(string(data), "search_issues") {
		t.Errorf("tool-retrieval.jsonl names the request or a tool:\n%s", data)
	}
}

// The llama.cpp classifier asks its questions one by one while the prompt
// waits: the status line counts them (the TUI polls the Status point each
// frame, so it never waits on the classifier).
func TestClassifyingProgressInStatus(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-4b", Status: "loaded"}})
	defer srv.Close()
	gate := make(chan struct{})
	srv.Classify = llamacpptest.Classify{Gate: gate}
	st := settings.Defaults()
	st.Laya.Classifier = "llama.cpp"
	st.Laya.Telemetry = false
	fc := &apptest.FakeClient{Replies: []apptest.Reply{apptest.Say("done")}}
	env := config.EnvFromMap(map[string]string{config.EnvLlamaBaseURL: srv.URL})
	d := New(Options{Settings: st, AgentDir: t.TempDir(), Cwd: t.TempDir(), Env: env}, newLayaCatalog(fc, "anthropic"))
	rt := attach(t, d, laya.AutoModel())
	done := make(chan error, 1)
	go func() { done <- rt.Prompt(context.Background(), "Fix the crash in the parser", nil) }()
	// The first question goes through; the second waits at the gate, so
	// the status line must come to show 1 of 19 (polled, as the TUI does).
	gate <- struct{}{}
	want := fmt.Sprintf("laya: classifying with llama.cpp 1/%d", len(laya.ClassifierQuestions()))
	deadline := time.Now().Add(30 * time.Second)
	for {
		line, _ := rt.seam.RunStatus(context.Background())
		if strings.Contains(line, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %q never showed %q", line, want)
		}
		time.Sleep(time.Millisecond) // a poll interval, not a wait for the condition
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	line, _ := rt.seam.RunStatus(context.Background())
	if strings.Contains(line, "classifying") || !strings.Contains(line, "laya balanced: ") {
		t.Errorf("status after the classification %q", line)
	}
	if s := d.Router().ClassifierStatus(); !strings.HasPrefix(s, "llama.cpp: qwen3-4b at ") {
		t.Errorf("classifier %q (%s)", s, d.Router().LastError())
	}
}

// With llama.cpp as the classifier the System One container is not
// needed: relay manages none, so nothing ever pulls its image.
func TestLlamaClassifierNeedsNoDocker(t *testing.T) {
	st := settings.Defaults()
	st.Laya.Classifier = "llama.cpp/qwen3-4b"
	d := New(Options{Settings: st, AgentDir: t.TempDir(), Cwd: t.TempDir(), Interactive: true}, newLayaCatalog(&apptest.FakeClient{}, "anthropic"))
	if d.docker != nil {
		t.Fatal("a Docker runtime was set up for the llama.cpp classifier")
	}
	st.Laya.Classifier = ""
	st.Laya.BaseURL = deadURL(t)
	env := config.EnvFromMap(map[string]string{config.EnvOffline: "1"})
	if d := New(Options{Settings: st, AgentDir: t.TempDir(), Cwd: t.TempDir(), Env: env}, newLayaCatalog(&apptest.FakeClient{}, "anthropic")); d.docker == nil {
		t.Fatal("the System One classifier lost its Docker runtime")
	}
}
