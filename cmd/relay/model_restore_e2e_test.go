package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// writeSessionWithModel writes a session of this project whose branch
// records provider/modelID, and returns its path.
func writeSessionWithModel(t *testing.T, e *env, provider, modelID string) string {
	t.Helper()
	dir := filepath.Join(e.agentDir, "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(e.cwd, "/"), "/", "-")+"--")
	os.MkdirAll(dir, 0o755)
	lines := []string{
		`{"type":"session","version":3,"id":"0192f3a0-0000-7000-8000-0000000000aa","timestamp":"2024-12-03T14:00:00.000Z","cwd":"` + e.cwd + `"}`,
		`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2024-12-03T14:00:00.000Z","provider":"` + provider + `","modelId":"` + modelID + `"}`,
		`{"type":"message","id":"u1","parentId":"m0","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}],"api":"openai-responses","provider":"` + provider + `","model":"` + modelID + `","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1733234402000}}`,
	}
	path := filepath.Join(dir, "2024-12-03T14-00-00-000Z_0192f3a0-0000-7000-8000-0000000000aa.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Continuing a session whose model has no credentials (no OPENAI_API_KEY
// here) goes on with the default model and says so, as the original does,
// instead of failing with "No API key for provider".
func TestContinueSessionWhoseModelHasNoKey(t *testing.T) {
	e := newEnv(t, quick("carried on"), nil)
	writeSessionWithModel(t, e, "openai", "gpt-5.5")
	out, errOut, code := e.run("-p", "-c", "again")
	if code != 0 || out != "carried on\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "Warning: Could not restore model openai/gpt-5.5. Using anthropic/") {
		t.Errorf("no fallback notice on stderr: %q", errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || !strings.HasPrefix(requestModel(t, reqs[0]), "claude-") {
		t.Fatalf("requests %d, model %q", len(reqs), requestModel(t, reqs[0]))
	}
	if body := string(reqs[0].Raw); !strings.Contains(body, "Hi!") || !strings.Contains(body, "again") {
		t.Errorf("request lacks the session's history: %s", body)
	}
}

// switch_session to such a session keeps a model that works.
func TestRPCSwitchToSessionWhoseModelHasNoKey(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "still here"}}}, nil)
	path := writeSessionWithModel(t, e, "openai", "gpt-5.5")
	r := rpcStart(e, model, "--no-session")
	if d := obj(t, r.ok("s1", `{"type":"switch_session","sessionPath":`+jsonString(path)+`}`)); d["cancelled"] != false {
		t.Fatalf("switch_session %v", d)
	}
	st := obj(t, r.ok("g1", `{"type":"get_state"}`))
	if m := obj(t, st["model"]); m["provider"] != "anthropic" {
		t.Errorf("model after switch %v/%v, want an anthropic model (the one with a key)", m["provider"], m["id"])
	}
	r.promptSettled("p1", "go on")
	if last := obj(t, r.ok("t1", `{"type":"get_last_assistant_text"}`)); last["text"] != "still here" {
		t.Errorf("reply after switch: %v", last)
	}
	if code := r.exitCode(); code != 0 {
		t.Errorf("exit %d: %s", code, r.err.String())
	}
}
