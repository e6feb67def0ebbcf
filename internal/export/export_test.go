package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func TestExportHTMLAndJSONL(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create("/proj", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u1, _ := s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("fix <b>bug</b>"), Timestamp: 1})
	s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: "hmm"}, &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}},
		API: "anthropic-messages", Provider: "anthropic", Model: "m", StopReason: llm.StopToolUse, Timestamp: 2})
	s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package a"}}, Timestamp: 3})
	s.SetLeaf(u1)
	s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "other branch"}}, StopReason: llm.StopStop, Timestamp: 4})
	s.AppendLabel(u1, "start")

	out := filepath.Join(dir, "s.html")
	p, err := Session(s, out)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	html := string(b)
	for _, want := range []string{"fix &lt;b&gt;bug&lt;/b&gt;", "tool call · read", "package a", "other branch", "branches here", `class="label">start`, "thinking"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	p, err = Session(s, filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1+len(s.Entries()) || !strings.HasPrefix(lines[0], `{"type":"session"`) {
		t.Errorf("jsonl export has %d lines", len(lines))
	}
}
