package session

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// Helpers to build sessions in memory and describe their context compactly.

func user(s string) *llm.UserMessage { return &llm.UserMessage{Content: llm.StringContent(s)} }
func asst(s string) *llm.AssistantMessage {
	return &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: s}}, Provider: "anthropic", Model: "claude", StopReason: llm.StopStop}
}
func tool(s string) *llm.ToolResultMessage {
	return &llm.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: s}}}
}
func system(s string) *llm.SystemMessage { return &llm.SystemMessage{Content: llm.StringContent(s)} }

type builder struct {
	t *testing.T
	m *Manager
}

func newBuilder(t *testing.T) *builder { return &builder{t, InMemory("/p")} }

func (b *builder) ok(id string, err error) string {
	b.t.Helper()
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

func (b *builder) msg(m llm.Message) string { b.t.Helper(); return b.ok(b.m.AppendMessage(m)) }

// describe renders messages as "role:text" joined by " | ".
func describe2(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		var text string
		switch v := m.(type) {
		case *llm.UserMessage:
			text = v.Content.PlainText()
			if !v.Content.IsString {
				text = "[" + text + "]"
			}
		case *llm.AssistantMessage:
			text = v.Content.PlainText()
		case *llm.ToolResultMessage:
			text = v.Content.PlainText()
		case *llm.SystemMessage:
			text = v.Content.PlainText()
		case *llm.CompactionSummaryMessage:
			text = v.Summary
		case *llm.BranchSummaryMessage:
			text = v.Summary + "<-" + *v.FromID
		case *llm.CustomMessage:
			text = v.CustomType + ":" + v.Content.PlainText()
		}
		parts = append(parts, m.MessageRole()+":"+text)
	}
	return strings.Join(parts, " | ")
}

func (b *builder) context() string { return describe2(b.m.BuildSessionContext().Messages) }

func (b *builder) expect(want string) {
	b.t.Helper()
	if got := b.context(); got != want {
		b.t.Errorf("context:\n got %s\nwant %s", got, want)
	}
}

func TestContextPathOnly(t *testing.T) {
	b := newBuilder(t)
	u1 := b.msg(user("q1"))
	b.msg(asst("a1"))
	b.msg(user("abandoned"))
	b.ok("", b.m.SetLeaf(u1))
	b.msg(asst("a1b"))
	b.expect("user:q1 | assistant:a1b")
}

func TestContextLatestCompactionWins(t *testing.T) {
	b := newBuilder(t)
	u1 := b.msg(user("q1"))
	b.msg(asst("a1"))
	u2 := b.msg(user("q2"))
	b.ok(b.m.AppendCompaction("S1", u1, 100, nil, nil, false, nil))
	b.msg(asst("a2"))
	b.ok(b.m.AppendCompaction("S2", u2, 200, nil, nil, false, nil))
	b.msg(user("q3"))
	// The older compaction lies inside the kept range and adds nothing.
	b.expect("compactionSummary:S2 | user:q2 | assistant:a2 | user:q3")
	es := b.m.BuildContextEntries()
	if es[0].Compaction() == nil || es[0].Compaction().Summary != "S2" {
		t.Errorf("first context entry is not the latest compaction: %s", es[0].Raw())
	}
}

func TestContextFirstKeptEntry(t *testing.T) {
	b := newBuilder(t)
	b.msg(user("old"))
	b.msg(asst("old answer"))
	keep := b.msg(user("kept"))
	b.msg(asst("kept answer"))
	b.ok(b.m.AppendCompaction("S", keep, 100, nil, nil, false, nil))
	b.msg(user("after"))
	b.expect("compactionSummary:S | user:kept | assistant:kept answer | user:after")
}

func TestContextRetainNone(t *testing.T) {
	b := newBuilder(t)
	b.msg(user("q1"))
	b.msg(asst("a1"))
	id := b.ok(b.m.AppendCompaction("everything", "", 100, nil, nil, false, nil))
	if c := b.m.Entry(id).Compaction(); c.FirstKeptEntryID != id {
		t.Errorf("retain-none firstKeptEntryId = %q, want own id %q", c.FirstKeptEntryID, id)
	}
	b.msg(user("next"))
	b.expect("compactionSummary:everything | user:next")
}

func TestContextSystemMessagesFoldedIntoCheckpoint(t *testing.T) {
	b := newBuilder(t)
	b.msg(system("v1 prompt"))
	keep := b.msg(user("q1"))
	b.msg(system("patch inside kept range"))
	b.msg(asst("a1"))
	b.ok(b.m.AppendCompaction("S", keep, 100, system("checkpoint"), nil, false, nil))
	b.msg(system("patch after compaction"))
	b.msg(user("q2"))
	b.expect("system:checkpoint | compactionSummary:S | user:q1 | assistant:a1 | system:patch after compaction | user:q2")
}

func TestContextCompactionWithoutSystemMessage(t *testing.T) {
	b := newBuilder(t)
	b.msg(system("prompt"))
	keep := b.msg(user("q1"))
	b.ok(b.m.AppendCompaction("S", keep, 100, nil, nil, false, nil))
	// An older entry without systemMessage: only the summary; retained
	// system messages are still dropped.
	b.expect("compactionSummary:S | user:q1")
}

func TestContextBranchSummary(t *testing.T) {
	b := newBuilder(t)
	u1 := b.msg(user("q1"))
	b.msg(asst("a1"))
	leaf := b.msg(user("explored"))
	b.ok(b.m.BranchWithSummary(u1, "tried A", nil, false, nil))
	b.expect("user:q1 | branchSummary:tried A<-" + leaf)
	// An empty summary adds no message.
	b.ok(b.m.BranchWithSummary(u1, "", nil, false, nil))
	b.expect("user:q1")
}

func TestContextCustomMessage(t *testing.T) {
	b := newBuilder(t)
	b.msg(user("q"))
	b.ok(b.m.AppendCustomMessage("ext", llm.StringContent("injected"), false, map[string]int{"x": 1}))
	b.expect("user:q | custom:ext:injected")
	msg := b.m.BuildSessionContext().Messages[1].(*llm.CustomMessage)
	if msg.Display || string(msg.Details) != `{"x":1}` || msg.Timestamp == 0 {
		t.Errorf("custom message fields: %+v", msg)
	}
}

func TestContextEditOmits(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("secret"))
	b.msg(asst("a"))
	b.ok(b.m.AppendContextEdit(u, nil))
	b.expect("assistant:a")
	// Raw history is untouched.
	if msg, _ := b.m.Entry(u).Message(); msg.(*llm.UserMessage).Content.Text != "secret" {
		t.Error("edit modified the target entry")
	}
}

func TestContextEditLatestWins(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("v0"))
	r1, r2 := llm.StringContent("v1"), llm.StringContent("v2")
	b.ok(b.m.AppendContextEdit(u, &r1))
	b.ok(b.m.AppendContextEdit(u, &r2))
	b.expect("user:v2")
}

func TestContextEditBranchRelative(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("original"))
	a := b.msg(asst("a"))
	r := llm.StringContent("edited")
	b.ok(b.m.AppendContextEdit(u, &r))
	b.expect("user:edited | assistant:a")
	b.ok("", b.m.SetLeaf(a))
	b.expect("user:original | assistant:a")
}

func TestContextEditStringReplacementNormalized(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("u"))
	a := b.msg(asst("long answer"))
	tr := b.msg(tool("huge output"))
	ru, ra, rt := llm.StringContent("U"), llm.StringContent("A"), llm.StringContent("T")
	b.ok(b.m.AppendContextEdit(u, &ru))
	b.ok(b.m.AppendContextEdit(a, &ra))
	b.ok(b.m.AppendContextEdit(tr, &rt))
	msgs := b.m.BuildSessionContext().Messages
	if c := msgs[0].(*llm.UserMessage).Content; !c.IsString || c.Text != "U" {
		t.Errorf("user replacement should stay a string: %+v", c)
	}
	for _, m := range msgs[1:] {
		var blocks llm.Blocks
		switch v := m.(type) {
		case *llm.AssistantMessage:
			blocks = v.Content
		case *llm.ToolResultMessage:
			blocks = v.Content
		}
		if len(blocks) != 1 || blocks[0].(*llm.TextContent) == nil {
			t.Errorf("%s replacement not one text block: %#v", m.MessageRole(), blocks)
		}
	}
	b.expect("user:U | assistant:A | toolResult:T")
	// Metadata of the source is kept.
	if am := msgs[1].(*llm.AssistantMessage); am.Provider != "anthropic" {
		t.Errorf("edit lost metadata: %+v", am)
	}
}

func TestContextEditTargetsValidated(t *testing.T) {
	b := newBuilder(t)
	s := b.msg(system("prompt"))
	u := b.msg(user("q"))
	mc := b.ok(b.m.AppendModelChange("openai", "gpt"))
	for _, id := range []string{s, mc, "nope"} {
		if _, err := b.m.AppendContextEdit(id, nil); err == nil {
			t.Errorf("edit of %s accepted", id)
		}
	}
	b.ok("", b.m.SetLeaf(s))
	if _, err := b.m.AppendContextEdit(u, nil); err == nil {
		t.Error("edit of an entry off the active branch accepted")
	}
}

func TestContextEntriesWithoutMessages(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("q"))
	b.ok(b.m.AppendUsage("cache_warm", "anthropic", "claude", llm.Usage{}))
	b.ok(b.m.AppendCustom("ext", map[string]int{"n": 1}))
	b.ok(b.m.AppendLabel(u, "mark"))
	b.ok(b.m.AppendSessionInfo("name"))
	b.ok(b.m.AppendModelChange("openai", "gpt-4o"))
	b.ok(b.m.AppendThinkingLevelChange("low"))
	r := llm.StringContent("q'")
	b.ok(b.m.AppendContextEdit(u, &r))
	b.expect("user:q'")
	p := b.m.BuildSessionProjection()
	if len(p.Entries) != 8 {
		t.Fatalf("projection keeps every selected entry: %d", len(p.Entries))
	}
	for _, pe := range p.Entries[1:] {
		if len(pe.Messages) != 0 {
			t.Errorf("%s produced messages", pe.Source.Type)
		}
	}
	if p.Entries[0].Source.ID != u {
		t.Errorf("projection source = %s", p.Entries[0].Source.ID)
	}
}

func TestContextModelAndThinkingFromPath(t *testing.T) {
	b := newBuilder(t)
	if c := b.m.BuildSessionContext(); c.ThinkingLevel != "off" || c.Model != nil || c.Messages == nil {
		t.Errorf("empty session: %+v", c)
	}
	b.msg(user("q"))
	b.ok(b.m.AppendModelChange("openai", "gpt-4o"))
	b.ok(b.m.AppendThinkingLevelChange("high"))
	a := b.msg(asst("a")) // assistant after the model change wins
	if c := b.m.BuildSessionContext(); c.Model.Provider != "anthropic" || c.Model.ModelID != "claude" || c.ThinkingLevel != "high" {
		t.Errorf("got %+v %+v", c.Model, c.ThinkingLevel)
	}
	b.ok(b.m.AppendModelChange("google", "gemini"))
	if c := b.m.BuildSessionContext(); c.Model.ModelID != "gemini" {
		t.Errorf("model change after assistant: %+v", c.Model)
	}
	// Settings come from the full path even when a compaction hides it.
	b.ok(b.m.AppendCompaction("S", "", 1, nil, nil, false, nil))
	if c := b.m.BuildSessionContext(); c.Model.ModelID != "gemini" || c.ThinkingLevel != "high" {
		t.Errorf("after compaction: %+v %q", c.Model, c.ThinkingLevel)
	}
	b.ok("", b.m.SetLeaf(a))
	if c := b.m.BuildSessionContext(); c.Model.ModelID != "claude" {
		t.Errorf("branch-relative model: %+v", c.Model)
	}
}

func TestContextNonSystemKeptAfterCompactionIncludesState(t *testing.T) {
	b := newBuilder(t)
	keep := b.msg(user("q"))
	b.ok(b.m.AppendModelChange("openai", "gpt"))
	b.ok(b.m.AppendCompaction("S", keep, 1, nil, nil, false, nil))
	var types []string
	for _, e := range b.m.BuildContextEntries() {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); got != "compaction,message,model_change" {
		t.Errorf("context entries %s", got)
	}
}

func TestJSONShapes(t *testing.T) {
	b := newBuilder(t)
	u := b.msg(user("q"))
	b.ok(b.m.AppendLabel(u, "L"))
	tree, err := llm.Marshal(b.m.Tree())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tree), `"label":"L"`) || !strings.Contains(string(tree), `"entry":{"type":"message"`) || !strings.Contains(string(tree), `"children":[]`) {
		t.Errorf("tree json %s", tree)
	}
	ctx, _ := llm.Marshal(b.m.BuildSessionContext())
	if !strings.HasPrefix(string(ctx), `{"messages":[{"role":"user","content":"q","timestamp":0}],"thinkingLevel":"off","model":null}`) {
		t.Errorf("context json %s", ctx)
	}
}

func TestUndecodableMessageLeftOut(t *testing.T) {
	p := writeFile(t, hdr+"\n"+line("a", "", "ok")+"\n"+`{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":5,"timestamp":1}}`+"\n")
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := describe2(m.BuildSessionContext().Messages); got != "user:ok" {
			t.Errorf("context %s", got)
		}
	}
	if ps := m.Problems(); len(ps) != 1 || ps[0].Line != 3 || !strings.Contains(ps[0].Msg, "left out of context") {
		t.Errorf("problems %v", ps)
	}
}
