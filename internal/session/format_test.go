package session

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// stableIDs makes generated entry ids and timestamps deterministic.
func stableIDs(t *testing.T) {
	t.Helper()
	n := 0
	old := randomID
	randomID = func() string { n++; return fmt.Sprintf("%08x", n) }
	t.Cleanup(func() { randomID = old })
}

func fixedClock(t *testing.T) {
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	old := clock
	clock = func() time.Time { n++; return base.Add(time.Duration(n) * time.Second) }
	t.Cleanup(func() { clock = old })
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func messagesJSON(t *testing.T, msgs []llm.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, m := range msgs {
		b, err := llm.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Every entry type of session-format.md (the seed document's example
// lines), plus unknown types, roles and fields, reads back byte for byte.
func TestAllEntryTypesRoundTrip(t *testing.T) {
	path := copyFixture(t, "all_types.jsonl")
	orig, _ := os.ReadFile(path)
	m, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if ps := m.Problems(); len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	lines := strings.Split(strings.TrimSuffix(string(orig), "\n"), "\n")
	if got := string(m.Header().Raw()); got != lines[0] {
		t.Errorf("header changed:\n%s\n%s", got, lines[0])
	}
	if m.Header().ParentSession != "/path/to/original/session.jsonl" {
		t.Errorf("parentSession = %q", m.Header().ParentSession)
	}
	for i, e := range m.Entries() {
		if string(e.Raw()) != lines[i+1] {
			t.Errorf("entry %d changed:\n%s\n%s", i, e.Raw(), lines[i+1])
		}
		if e.Line != i+2 {
			t.Errorf("entry %s line = %d, want %d", e.ID, e.Line, i+2)
		}
	}
	// Every typed body decodes and re-encodes in its golden form.
	var out bytes.Buffer
	for _, e := range m.Entries() {
		var body any
		switch e.Type {
		case TypeMessage:
			msg, err := e.Message()
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			body = msg
		case TypeModelChange:
			body = e.ModelChange()
		case TypeThinkingLevelChange:
			body = e.ThinkingLevelChange()
		case TypeUsage:
			body = e.Usage()
		case TypeCompaction:
			body = e.Compaction()
		case TypeContextEdit:
			body = e.ContextEdit()
		case TypeBranchSummary:
			body = e.BranchSummary()
		case TypeCustom:
			body = e.Custom()
		case TypeCustomMessage:
			body = e.CustomMessage()
		case TypeLabel:
			body = e.Label()
		case TypeSessionInfo:
			body = e.SessionInfo()
		default:
			body = "unknown type kept raw"
		}
		b, err := llm.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s %s %s\n", e.Type, e.ID, b)
	}
	golden(t, "all_types.bodies.golden", out.Bytes())
	if m.Name() != "Refactor auth module" || m.Label("a1b2c3d4") != "checkpoint-1" {
		t.Errorf("name %q label %q", m.Name(), m.Label("a1b2c3d4"))
	}
	ctx := m.BuildSessionContext()
	golden(t, "all_types.context.golden", messagesJSON(t, ctx.Messages))
	if ctx.ThinkingLevel != "high" || ctx.Model == nil || ctx.Model.ModelID != "gpt-4o" {
		t.Errorf("settings: %q %+v", ctx.ThinkingLevel, ctx.Model)
	}
	// An append after reading leaves every earlier byte in place.
	if _, err := m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("more"), Timestamp: 1}); err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(path)
	if !bytes.HasPrefix(now, orig) {
		t.Error("append rewrote existing bytes")
	}
}

// Appending every kind of entry writes the documented records.
func TestAppendEveryTypeGolden(t *testing.T) {
	stableIDs(t)
	fixedClock(t)
	dir := t.TempDir()
	m, err := Create("/work/proj", dir, CreateOptions{ID: "sess-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sys := &llm.SystemMessage{Content: llm.StringContent(""), Sections: llm.Sections{{Name: "preamble", Text: ptr("You are relay.")}}, ToolsAdded: []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}, Timestamp: 1}
	must := func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	must(m.AppendMessage(sys))
	u := must(m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("Hello <b>&"), Timestamp: 2}))
	a := must(m.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "Hi!"}}, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: llm.StopStop, Timestamp: 3}))
	must(m.AppendModelChange("openai", "gpt-4o"))
	must(m.AppendThinkingLevelChange("high"))
	must(m.AppendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", llm.Usage{CacheRead: 50000, TotalTokens: 50000}))
	must(m.AppendCompaction("summary", u, 1200, sys, map[string][]string{"readFiles": {"a.go"}, "modifiedFiles": {}}, false, &llm.Usage{Input: 5}))
	must(m.AppendCompaction("retain none", "", 10, nil, nil, true, nil))
	rep := llm.StringContent("shorter")
	must(m.AppendContextEdit(a, &rep))
	must(m.AppendContextEdit(u, nil))
	must(m.AppendCustom("my-extension", map[string]int{"count": 42}))
	must(m.AppendCustomMessage("my-extension", llm.StringContent("Injected"), true, nil))
	must(m.AppendLabel(u, "checkpoint-1"))
	must(m.AppendLabel(u, ""))
	must(m.AppendSessionInfo("Refactor\nauth"))
	must(m.BranchWithSummary(a, "Branch explored A", map[string][]string{"readFiles": {}}, false, nil))
	must(m.BranchWithSummary("", "from root", nil, true, nil))
	data, err := os.ReadFile(m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(m.SessionFile()) != "2025-01-02T03-04-06-000Z_sess-1.jsonl" {
		t.Errorf("file name %s", filepath.Base(m.SessionFile()))
	}
	golden(t, "appended.golden.jsonl", data)
	// And the file reads back clean.
	r, err := Check(m.SessionFile())
	if err != nil || !r.Sound() {
		t.Fatalf("check: %v %v", err, r.Problems)
	}
}

func ptr[T any](v T) *T { return &v }

func TestMigrationV1(t *testing.T) {
	stableIDs(t)
	path := copyFixture(t, "v1.jsonl")
	m, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	data, _ := os.ReadFile(path)
	golden(t, "v1.migrated.golden.jsonl", data)
	es := m.Entries()
	for i, e := range es {
		want := ""
		if i > 0 {
			want = es[i-1].ID
		}
		if e.ParentID != want {
			t.Errorf("entry %d parent %q want %q", i, e.ParentID, want)
		}
	}
	if c := es[3].Compaction(); c == nil || c.FirstKeptEntryID != es[2].ID {
		t.Errorf("firstKeptEntryIndex not converted: %+v", c)
	}
	if es[4].Role() != llm.RoleCustom {
		t.Errorf("hookMessage role not migrated: %q", es[4].Role())
	}
	// Migrated once: opening again changes nothing.
	m.Close()
	m2, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	m2.Close()
	again, _ := os.ReadFile(path)
	if !bytes.Equal(again, data) {
		t.Error("second open rewrote the file")
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp"))
	if len(matches) != 0 {
		t.Errorf("temp files left: %v", matches)
	}
}

func TestMigrationV2(t *testing.T) {
	path := copyFixture(t, "v2.jsonl")
	m, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	data, _ := os.ReadFile(path)
	golden(t, "v2.migrated.golden.jsonl", data)
	msg, err := m.Entry("aa000002").Message()
	if err != nil {
		t.Fatal(err)
	}
	if cm, ok := msg.(*llm.CustomMessage); !ok || cm.CustomType != "ext" {
		t.Errorf("got %#v", msg)
	}
}

func TestNewerVersionRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	content := `{"type":"session","version":4,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"
	os.WriteFile(p, []byte(content), 0o644)
	_, err := Open(p, "")
	if err == nil || !strings.Contains(err.Error(), "version 4") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != content {
		t.Error("file modified")
	}
}
