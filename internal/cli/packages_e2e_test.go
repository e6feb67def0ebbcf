package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// A package installed with relay install reaches a run: its prompt
// template expands and its skill is listed in the system prompt.
func TestPackageResourcesReachARun(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "ok"}, llmtest.Response{Text: "ok"})
	pkg := filepath.Join(t.TempDir(), "pkg-demo")
	copyDir(t, filepath.Join(testdataDir, "pkg-demo"), pkg)
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"install", pkg}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errb.String())
	}
	if data, _ := os.ReadFile(filepath.Join(agent, "settings.json")); !strings.Contains(string(data), "pkg-demo") {
		t.Fatalf("settings: %s", data)
	}
	out.Reset()
	errb.Reset()
	if code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "/demo-prompt hello"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	body, _ := json.Marshal(srv.Requests()[0].Body)
	if !strings.Contains(string(body), "Demo prompt hello") {
		t.Errorf("template not expanded: %s", body)
	}
	if !strings.Contains(string(body), "Demo skill from a package") {
		t.Errorf("package skill not in the system prompt: %s", body)
	}
	// -ns / -np drop them again.
	out.Reset()
	errb.Reset()
	if code := Main(context.Background(), []string{"-p", "-ns", "-np", "--model", "anthropic/claude-sonnet-4-5", "/demo-prompt hello"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if len(srv.Requests()) < 2 {
		t.Fatalf("no second request")
	}
	body, _ = json.Marshal(srv.Requests()[1].Body)
	if strings.Contains(string(body), "Demo prompt hello") || strings.Contains(string(body), "Demo skill from a package") {
		t.Errorf("-ns -np still loaded package resources: %s", body)
	}
}
