package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// agent_before_settle from an extension: its drafts become session
// entries before the agent settles, the custom message reaches the next
// request, and continue makes that request.
func TestExtensionBeforeSettle(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "done"}, {Text: "checked everything"}}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", extPath(t, "settle.ts"), "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (continue: true makes one more); stderr %s", len(reqs), errOut)
	}
	if !strings.Contains(string(reqs[1].Raw), "Please also list what you checked.") {
		t.Errorf("the custom message is not in the second request: %s", reqs[1].Raw)
	}
	files, _ := filepath.Glob(filepath.Join(e.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	s := string(data)
	for _, want := range []string{
		`"customType":"settle-state","data":{"round":1}`,
		`"customType":"settle-note","content":"Please also list what you checked.","display":true`,
		// The second handler saw the first one's two drafts and its continue,
		// then on the second settle the empty list.
		`"customType":"settle-seen","data":{"seen":2,"cont":true,"outcome":"completed"}`,
		`"customType":"settle-seen","data":{"seen":0,"cont":false,"outcome":"completed"}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("session lacks %s", want)
		}
	}
	if strings.Contains(out, `"type":"extension_error"`) {
		t.Errorf("extension errors: %s", out)
	}
}
