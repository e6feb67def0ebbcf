package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// A llama.cpp router found through LLAMA_BASE_URL, with no models.json
// entry: --list-models shows its loaded model, and a streamed answer with
// reasoning_content and a split tool call runs a tool turn end to end.
func TestLlamaCppProviderEndToEnd(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{
		{ID: "qwen3-4b-q4", Status: "loaded", CtxSize: 16384, ChatTemplate: "{% if enable_thinking %}{% endif %}"},
		{ID: "cold-model", Status: "unloaded"},
	},
		llamacpptest.Turn{Reasoning: "The user wants the note. I will read it.", ToolCalls: [][2]string{{"read", `{"path":"note.txt"}`}, {"read", `{"path":"other.txt"}`}}},
		llamacpptest.Turn{Reasoning: "It says hi.", Text: "The note says: hello from the note."},
	)
	defer srv.Close()
	e := newEnv(t, &llmtest.Script{}, nil)
	os.WriteFile(filepath.Join(e.cwd, "note.txt"), []byte("hello from the note\n"), 0o644)
	os.WriteFile(filepath.Join(e.cwd, "other.txt"), []byte("second file body\n"), 0o644)
	llamaEnv := []string{"LLAMA_BASE_URL=" + srv.URL, "LLAMA_API_KEY="}

	c := e.cmd(nil, "--list-models", "llama")
	c.Env = append(c.Env, llamaEnv...)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "llama.cpp  qwen3-4b-q4") || !strings.Contains(string(out), "16.4K") || strings.Contains(string(out), "cold-model") {
		t.Fatalf("--list-models llama: %v\n%s", err, out)
	}

	c = e.cmd(nil, "-p", "--model", "llama.cpp/qwen3-4b-q4", "what does note.txt say?")
	c.Env = append(c.Env, llamaEnv...)
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("relay -p: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	if got := stdout.String(); got != "The note says: hello from the note.\n" {
		t.Errorf("stdout %q (stderr %s)", got, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want 2", len(reqs))
	}
	first := reqs[0]
	if first["model"] != "qwen3-4b-q4" || first["stream"] != true {
		t.Errorf("first request model %v stream %v", first["model"], first["stream"])
	}
	// A template with enable_thinking makes the model a reasoning one: the
	// switch goes through chat_template_kwargs.
	if kw, _ := first["chat_template_kwargs"].(map[string]any); kw["enable_thinking"] != true {
		t.Errorf("chat_template_kwargs = %v, want enable_thinking true", first["chat_template_kwargs"])
	}
	if _, ok := first["store"]; ok {
		t.Error("request carries store, which llama-server does not take")
	}
	if _, ok := first["max_tokens"]; !ok {
		t.Errorf("request lacks max_tokens: %v", keys(first))
	}
	for _, m := range first["messages"].([]any) {
		if m.(map[string]any)["role"] == "developer" {
			t.Error("developer role sent to llama-server")
		}
	}
	// The second request replays the assistant's tool call with the id the
	// server gave, and the tool result with the file's content.
	raw, _ := json.Marshal(reqs[1]["messages"])
	for _, want := range []string{`"id":"fakeCall0xYz0123456789abcdefghij"`, `"tool_call_id":"fakeCall0xYz0123456789abcdefghij"`, "hello from the note", `\"path\":\"note.txt\"`,
		`"tool_call_id":"fakeCall1xYz0123456789abcdefghij"`, "second file body"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("second request lacks %s: %s", want, raw)
		}
	}
	e.checkSessions()
	// The session records the reasoning as thinking.
	data, _ := os.ReadFile(e.sessionFiles()[0])
	if !strings.Contains(string(data), "The user wants the note. I will read it.") {
		t.Errorf("reasoning_content not kept as thinking in the session")
	}
}

// A server that is down gives a prompt, clear error instead of a hang.
func TestLlamaCppServerDown(t *testing.T) {
	srv := llamacpptest.New(true, nil)
	url := srv.URL
	srv.Close()
	e := newEnv(t, &llmtest.Script{}, nil)
	c := e.cmd(nil, "-p", "--model", "llama.cpp/qwen3", "hello")
	c.Env = append(c.Env, "LLAMA_BASE_URL="+url)
	out, err := c.CombinedOutput()
	if err == nil {
		t.Fatalf("ran against a dead server: %s", out)
	}
	if !strings.Contains(string(out), "llama.cpp server at "+url+" is not reachable") || !strings.Contains(string(out), "LLAMA_BASE_URL") {
		t.Errorf("error does not say the server is down: %s", out)
	}
}

// "-builtin:llama.cpp" turns the provider off.
func TestLlamaCppBuiltinOff(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "m1", Status: "loaded"}})
	defer srv.Close()
	e := newEnv(t, &llmtest.Script{}, map[string]any{"extensions": []string{"-builtin:llama.cpp"}})
	c := e.cmd(nil, "--list-models", "llama")
	c.Env = append(c.Env, "LLAMA_BASE_URL="+srv.URL)
	out, _ := c.CombinedOutput()
	if strings.Contains(string(out), "m1") || len(srv.Paths()) != 0 {
		t.Errorf("llama.cpp still on: %s (server saw %v)", out, srv.Paths())
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
