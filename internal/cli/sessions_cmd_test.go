package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func runSess(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSessions(context.Background(), args, config.ReadEnv(), &out, &errb)
	return out.String(), errb.String(), code
}

func sessionsFixture(t *testing.T) (dir, path, id string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("RELAY_CODING_AGENT_DIR", filepath.Join(dir, "agent"))
	t.Setenv("RELAY_CODING_AGENT_SESSION_DIR", filepath.Join(dir, "store"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	cwd, _ := os.Getwd()
	m, err := session.Create(cwd, filepath.Join(dir, "store"), session.CreateOptions{ID: "cli-test-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	u, _ := m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("hello there"), Timestamp: 1})
	a, _ := m.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "hi"}}, Provider: "p", Model: "m", StopReason: llm.StopStop, Timestamp: 2})
	m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("second"), Timestamp: 3})
	m.SetLeaf(a)
	m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("other branch"), Timestamp: 4})
	m.AppendLabel(u, "start")
	return dir, m.SessionFile(), "cli-test-1"
}

func TestSessionsList(t *testing.T) {
	_, path, id := sessionsFixture(t)
	out, _, code := runSess(t, "list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "hello there") || !strings.Contains(out, "4 msgs") {
		t.Fatalf("code %d out %q", code, out)
	}
	out, _, code = runSess(t, "list", "--all", "--json")
	var infos []session.SessionInfo
	if code != 0 || json.Unmarshal([]byte(out), &infos) != nil || len(infos) != 1 || infos[0].Path != path {
		t.Fatalf("json list: %d %s", code, out)
	}
}

func TestSessionsShow(t *testing.T) {
	_, path, id := sessionsFixture(t)
	out, _, code := runSess(t, "show", id[:6])
	if code != 0 || !strings.Contains(out, "[start] user: hello there") || !strings.Contains(out, "label start") {
		t.Fatalf("show: %d\n%s", code, out)
	}
	out, _, code = runSess(t, "show", path, "--json")
	var recs []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &recs) != nil || len(recs) != 6 || recs[0]["type"] != "session" {
		t.Fatalf("show --json: %d %s", code, out)
	}
	out, _, code = runSess(t, "show", path, "--context")
	var msgs llm.Messages
	if code != 0 || json.Unmarshal([]byte(out), &msgs) != nil {
		t.Fatalf("context: %d %s", code, out)
	}
	if len(msgs) != 3 || msgs[2].(*llm.UserMessage).Content.Text != "other branch" {
		t.Errorf("context messages %s", out)
	}
	second := recs[3]["id"].(string)
	out, _, _ = runSess(t, "show", path, "--context", "--leaf", second)
	if !strings.Contains(out, `"second"`) || strings.Contains(out, "other branch") {
		t.Errorf("--leaf context %s", out)
	}
	if _, errOut, code := runSess(t, "show", "nope-id"); code != 1 || !strings.Contains(errOut, "no session") {
		t.Errorf("missing id: %d %s", code, errOut)
	}
}

func TestSessionsCheck(t *testing.T) {
	dir, path, _ := sessionsFixture(t)
	out, _, code := runSess(t, "check", path)
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("sound: %d %s", code, out)
	}
	data, _ := os.ReadFile(path)
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, append(append([]byte{}, data...), `{"type":"message","id":"x`...), 0o644)
	out, _, code = runSess(t, "check", torn)
	if code != 0 || !strings.Contains(out, ":7: warning: incomplete final record") {
		t.Fatalf("torn: %d %s", code, out)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = `{"type":"message","id":"broken"` + "\n"
	lines[3] = strings.Replace(lines[3], `"parentId":"`, `"parentId":"zz`, 1)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644)
	out, _, code = runSess(t, "check", bad)
	if code != 1 || !strings.Contains(out, ":3: error: corrupt record") || !strings.Contains(out, ":4: error: entry") {
		t.Fatalf("bad: %d %s", code, out)
	}
	if _, errOut, code := runSess(t, "check", filepath.Join(dir, "missing.jsonl")); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("missing: %d %s", code, errOut)
	}
	if _, _, code := runSess(t, "frobnicate"); code != 2 {
		t.Errorf("usage error exit %d", code)
	}
}

func TestSessionsDirFromSetting(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	t.Setenv("RELAY_CODING_AGENT_DIR", agent)
	t.Setenv("RELAY_CODING_AGENT_SESSION_DIR", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	store := filepath.Join(dir, "from-setting")
	os.MkdirAll(agent, 0o755)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"sessionDir": "`+store+`"}`), 0o644)
	cwd, _ := os.Getwd()
	m, _ := session.Create(cwd, store, session.CreateOptions{ID: "via-setting"})
	m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("x"), Timestamp: 1})
	m.Close()
	out, _, code := runSess(t, "list")
	if code != 0 || !strings.Contains(out, "via-setting") {
		t.Fatalf("%d %s", code, out)
	}
	// The flag wins over the setting.
	out, errOut, _ := runSess(t, "list", "--session-dir", filepath.Join(dir, "empty"))
	if strings.Contains(out, "via-setting") || !strings.Contains(errOut, "No sessions") {
		t.Fatalf("flag: %s %s", out, errOut)
	}
}
