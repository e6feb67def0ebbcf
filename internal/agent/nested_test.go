package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// leaf returns its "text" argument, or an error result when it is "fail".
type leaf struct{}

func (leaf) Spec() llm.ToolSpec { return llm.ToolSpec{Name: "leaf"} }
func (leaf) Execute(ctx context.Context, args json.RawMessage, onUpdate func(tool.Result)) tool.Result {
	var in struct{ Text string }
	_ = json.Unmarshal(args, &in)
	onUpdate(tool.Text("working " + tool.CallID(ctx)))
	if in.Text == "fail" {
		return tool.Error("leaf failed")
	}
	return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: in.Text}}, Structured: json.RawMessage(`{"v":1}`)}
}

// caller makes nested calls the way codemode does: through the runner in
// its context, one of them from inside a nested call.
type caller struct{}

func (caller) Spec() llm.ToolSpec { return llm.ToolSpec{Name: "caller"} }
func (caller) Execute(ctx context.Context, _ json.RawMessage, _ func(tool.Result)) tool.Result {
	n := tool.NestedFrom(ctx)
	if n == nil {
		return tool.Error("no runner")
	}
	var got []string
	for _, text := range []string{"a", "fail", "blocked"} {
		started := ""
		o := n.RunNested(ctx, tool.NestedCall{Name: "leaf", Tool: leaf{}, Args: json.RawMessage(`{"text":"` + text + `"}`),
			OnStart: func(id string) { started = id }})
		got = append(got, fmt.Sprintf("%s=%s err=%v blocked=%v structured=%s started=%s", o.ID, blocksText(o.Result.Content), o.Result.IsError, o.Blocked, o.Result.Structured, started))
	}
	o := n.RunNested(ctx, tool.NestedCall{Name: "inner", Tool: inner{}})
	got = append(got, o.ID+"="+blocksText(o.Result.Content))
	return tool.Text(strings.Join(got, "\n"))
}

// inner is a nested tool that makes a nested call of its own.
type inner struct{}

func (inner) Spec() llm.ToolSpec { return llm.ToolSpec{Name: "inner"} }
func (inner) Execute(ctx context.Context, _ json.RawMessage, _ func(tool.Result)) tool.Result {
	o := tool.NestedFrom(ctx).RunNested(ctx, tool.NestedCall{Name: "leaf", Tool: leaf{}, Args: json.RawMessage(`{"text":"deep"}`)})
	return tool.Text(o.ID + ":" + blocksText(o.Result.Content))
}

// Nested calls are real tool calls: events naming the parent, the
// BeforeToolCall and AfterToolCall places (the seam's tool_call and
// tool_result), ids <parent>/<n>, and a nestedCalls record on the result
// of the model's call.
func TestNestedCallsRunThroughTheLoop(t *testing.T) {
	rec := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{fixed(toolCall("c1", "caller", `{}`)), fixed(text("done"))}}
	var before, after []string
	a := New(Options{Stream: s.stream, Emit: rec.emit, Persist: rec.persist,
		ExecuteTool: func(ctx context.Context, call *llm.ToolCall, update func(ToolOutcome)) ToolOutcome {
			var c tool.Tool = caller{}
			if call.Name != c.Spec().Name {
				t.Errorf("call of %s", call.Name)
			}
			r := c.Execute(tool.WithCallID(ctx, call.ID), call.Arguments, nil)
			return ToolOutcome{Content: r.Content, IsError: r.IsError}
		},
		Hooks: Hooks{
			BeforeToolCall: func(ctx context.Context, call *llm.ToolCall) (bool, string) {
				before = append(before, call.ID+" parent="+ParentToolCallID(ctx))
				if strings.Contains(string(call.Arguments), "blocked") {
					return true, "refused by the gate"
				}
				return false, ""
			},
			AfterToolCall: func(call *llm.ToolCall, res *llm.ToolResultMessage) {
				after = append(after, call.ID)
				if call.ID == "c1/1" {
					res.Content = llm.Blocks{&llm.TextContent{Text: "rewritten"}}
				}
			},
		}})
	if err := a.Run(context.Background(), &llm.UserMessage{Content: llm.StringContent("go")}); err != nil {
		t.Fatal(err)
	}
	wantBefore := []string{"c1 parent=", "c1/1 parent=c1", "c1/2 parent=c1", "c1/3 parent=c1", "c1/4 parent=c1", "c1/4/1 parent=c1/4"}
	if fmt.Sprint(before) != fmt.Sprint(wantBefore) {
		t.Errorf("BeforeToolCall saw %v, want %v", before, wantBefore)
	}
	wantAfter := []string{"c1/1", "c1/2", "c1/3", "c1/4/1", "c1/4", "c1"}
	if fmt.Sprint(after) != fmt.Sprint(wantAfter) {
		t.Errorf("AfterToolCall saw %v, want %v", after, wantAfter)
	}
	var res *llm.ToolResultMessage
	for _, m := range rec.saved {
		if r, ok := m.(*llm.ToolResultMessage); ok {
			res = r
		}
	}
	out := blocksText(res.Content)
	for _, want := range []string{
		"c1/1=rewritten err=false blocked=false structured={\"v\":1} started=c1/1",
		"c1/2=leaf failed err=true blocked=false structured= started=c1/2",
		"c1/3=refused by the gate err=true blocked=true structured= started=c1/3",
		"c1/4=c1/4/1:deep",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("result %q lacks %q", out, want)
		}
	}
	var nc struct {
		Calls []struct {
			ID, Name, Status, Error string
			Arguments               json.RawMessage
		}
		Complete bool
	}
	if err := json.Unmarshal(res.NestedCalls, &nc); err != nil {
		t.Fatalf("nestedCalls %s: %v", res.NestedCalls, err)
	}
	var calls []string
	for _, c := range nc.Calls {
		calls = append(calls, c.ID+" "+c.Name+" "+c.Status+" "+c.Error+" "+string(c.Arguments))
	}
	wantCalls := []string{`c1/1 leaf ok  {"text":"a"}`, `c1/2 leaf error leaf failed {"text":"fail"}`,
		`c1/3 leaf error refused by the gate {"text":"blocked"}`, `c1/4 inner ok  {}`, `c1/4/1 leaf ok  {"text":"deep"}`}
	if fmt.Sprint(calls) != fmt.Sprint(wantCalls) || !nc.Complete {
		t.Errorf("nestedCalls %v complete=%v, want %v", calls, nc.Complete, wantCalls)
	}
	// Events: each nested call has start, (update,) end, naming its parent.
	var evs []string
	for _, e := range rec.events {
		switch e.Type {
		case ToolExecutionStart, ToolExecutionUpdate, ToolExecutionEnd:
			evs = append(evs, strings.TrimPrefix(e.Type, "tool_execution_")+" "+e.ToolCallID+"<"+e.ParentToolCallID)
		}
	}
	wantEvs := "start c1< start c1/1<c1 update c1/1<c1 end c1/1<c1 start c1/2<c1 update c1/2<c1 end c1/2<c1 start c1/3<c1 end c1/3<c1 " +
		"start c1/4<c1 start c1/4/1<c1/4 update c1/4/1<c1/4 end c1/4/1<c1/4 end c1/4<c1 end c1<"
	if strings.Join(evs, " ") != wantEvs {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(evs, " "), wantEvs)
	}
	b, _ := json.Marshal(rec.events[indexOf(rec.events, ToolExecutionEnd, "c1/1")])
	if !strings.Contains(string(b), `"parentToolCallId":"c1"`) {
		t.Errorf("wire form %s lacks parentToolCallId", b)
	}
}

func indexOf(evs []Event, typ, id string) int {
	for i, e := range evs {
		if e.Type == typ && e.ToolCallID == id {
			return i
		}
	}
	return -1
}

// The record is bounded: past 256 calls it drops calls and says it is
// incomplete; big arguments are replaced by their size.
func TestNestedRecordLimits(t *testing.T) {
	n := newNestedRunner(New(Options{}), "p")
	big := json.RawMessage(`{"x":"` + strings.Repeat("a", nestedMaxArgBytes) + `"}`)
	n.mu.Lock()
	i := n.start("p/1", "t", big)
	n.mu.Unlock()
	n.finish(i, &llm.ToolResultMessage{}, 0)
	for k := 0; k < nestedMaxCalls+5; k++ {
		n.mu.Lock()
		j := n.start("p/x", "t", json.RawMessage(`{}`))
		n.mu.Unlock()
		n.finish(j, &llm.ToolResultMessage{}, 0)
	}
	var nc struct {
		Calls []struct {
			Arguments      json.RawMessage
			ArgumentsBytes int
		}
		Complete bool
	}
	if err := json.Unmarshal(n.record(), &nc); err != nil {
		t.Fatal(err)
	}
	if len(nc.Calls) != nestedMaxCalls || nc.Complete || nc.Calls[0].Arguments != nil || nc.Calls[0].ArgumentsBytes != len(big) {
		t.Errorf("%d calls, complete %v, first %+v", len(nc.Calls), nc.Complete, nc.Calls[0])
	}
}
