package agent

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Limits of the nestedCalls record on a tool result (upstream-spec-core
// toolResult.nestedCalls): arguments past the per-call or total size are
// left out (argumentsBytes says how big they were), calls past the count
// are dropped, and the record is then marked incomplete.
const (
	nestedMaxCalls      = 256
	nestedMaxArgBytes   = 8 << 10
	nestedMaxArgsTotal  = 32 << 10
	nestedMaxErrorChars = 500
)

type parentKey struct{}

// ParentToolCallID returns the id of the call whose nested call ctx
// belongs to, for the tool_call hooks ("" for the model's own calls).
func ParentToolCallID(ctx context.Context) string {
	id, _ := ctx.Value(parentKey{}).(string)
	return id
}

// nestedRunner runs the nested calls below one model-issued call through
// the same places as the loop runs that call: tool_execution events (with
// parentToolCallId), BeforeToolCall, the tool, AfterToolCall. It numbers
// them <parent>/<n> per parent and keeps the record that becomes the
// model-issued call's nestedCalls.
type nestedRunner struct {
	a    *Agent
	root string

	mu       sync.Mutex
	next     map[string]int
	calls    []nestedRecord
	complete bool
	argBytes int
}

type nestedRecord struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	ArgumentsBytes int             `json:"argumentsBytes,omitempty"`
	Status         string          `json:"status"` // ok, error, unfinished
	DurationMs     *int64          `json:"durationMs,omitempty"`
	Error          string          `json:"error,omitempty"`
}

func newNestedRunner(a *Agent, root string) *nestedRunner {
	return &nestedRunner{a: a, root: root, next: map[string]int{}, complete: true}
}

// RunNested implements tool.Nested.
func (n *nestedRunner) RunNested(ctx context.Context, nc tool.NestedCall) tool.NestedOutcome {
	parent := tool.CallID(ctx)
	if parent == "" {
		parent = n.root
	}
	args := nc.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	n.mu.Lock()
	n.next[parent]++
	id := parent + "/" + strconv.Itoa(n.next[parent])
	rec := n.start(id, nc.Name, args)
	n.mu.Unlock()

	call := &llm.ToolCall{ID: id, Name: nc.Name, Arguments: args}
	n.a.emitLocked(Event{Type: ToolExecutionStart, ToolCallID: id, ToolName: nc.Name, Args: args, ParentToolCallID: parent})
	if nc.OnStart != nil {
		nc.OnStart(id)
	}
	start := time.Now()
	var res tool.Result
	blocked := false
	hookCtx := context.WithValue(ctx, parentKey{}, parent)
	switch {
	case ctx.Err() != nil:
		res = tool.Error("Tool execution was aborted.")
	default:
		if h := n.a.opts.Hooks.BeforeToolCall; h != nil {
			if block, reason := h(hookCtx, call); block {
				blocked = true
				if reason == "" {
					reason = "Tool call blocked"
				}
				res = tool.Error(reason)
			}
		}
		if !blocked {
			if len(call.Arguments) == 0 {
				call.Arguments = json.RawMessage("{}")
			}
			res = nc.Tool.Execute(tool.WithCallID(ctx, id), call.Arguments, func(p tool.Result) {
				if nc.OnUpdate != nil {
					nc.OnUpdate(p)
				}
				n.a.emitLocked(Event{Type: ToolExecutionUpdate, ToolCallID: id, ToolName: nc.Name, Args: call.Arguments,
					Output: &ToolOutput{Content: orEmpty(p.Content), Details: detailsOrEmpty(marshalDetails(p.Details))}, ParentToolCallID: parent})
			})
		}
	}
	msg := &llm.ToolResultMessage{ToolCallID: id, ToolName: nc.Name, Content: orEmpty(res.Content),
		Details: marshalDetails(res.Details), IsError: res.IsError, Timestamp: n.a.opts.Now().UnixMilli()}
	if h := n.a.opts.Hooks.AfterToolCall; h != nil {
		h(call, msg)
	}
	n.finish(rec, msg, time.Since(start))
	n.a.emitLocked(Event{Type: ToolExecutionEnd, ToolCallID: id, ToolName: nc.Name,
		Output: &ToolOutput{Content: msg.Content, Details: detailsOrEmpty(msg.Details)}, IsError: msg.IsError, ParentToolCallID: parent})
	out := tool.Result{Content: msg.Content, IsError: msg.IsError, Structured: res.Structured}
	if len(msg.Details) > 0 {
		out.Details = msg.Details
	}
	return tool.NestedOutcome{ID: id, Result: out, Blocked: blocked}
}

// start records a call; it returns -1 when the record is full. Called
// with n.mu held.
func (n *nestedRunner) start(id, name string, args json.RawMessage) int {
	if len(n.calls) >= nestedMaxCalls {
		n.complete = false
		return -1
	}
	r := nestedRecord{ID: id, Name: name, Status: "unfinished"}
	if len(args) > nestedMaxArgBytes || n.argBytes+len(args) > nestedMaxArgsTotal || !json.Valid(args) {
		r.ArgumentsBytes = len(args)
		n.complete = false
	} else {
		r.Arguments = append(json.RawMessage(nil), args...)
		n.argBytes += len(args)
	}
	n.calls = append(n.calls, r)
	return len(n.calls) - 1
}

func (n *nestedRunner) finish(i int, msg *llm.ToolResultMessage, d time.Duration) {
	if i < 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	r := &n.calls[i]
	r.Status = "ok"
	ms := d.Milliseconds()
	r.DurationMs = &ms
	if msg.IsError {
		r.Status = "error"
		r.Error = clipRunes(blocksText(msg.Content), nestedMaxErrorChars)
	}
}

// record is the nestedCalls value of the model-issued call's result, nil
// when it made no nested call.
func (n *nestedRunner) record() json.RawMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.calls) == 0 && n.complete {
		return nil
	}
	complete := n.complete
	for _, c := range n.calls {
		if c.Status == "unfinished" {
			complete = false
		}
	}
	b, err := llm.Marshal(struct {
		Calls    []nestedRecord `json:"calls"`
		Complete bool           `json:"complete"`
	}{append([]nestedRecord{}, n.calls...), complete})
	if err != nil {
		return nil
	}
	return b
}

func marshalDetails(d any) json.RawMessage {
	switch v := d.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	b, err := llm.Marshal(d)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

func orEmpty(b llm.Blocks) llm.Blocks {
	if b == nil {
		return llm.Blocks{}
	}
	return b
}

func blocksText(bs llm.Blocks) string {
	var out []byte
	for _, b := range bs {
		if t, ok := b.(*llm.TextContent); ok {
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, t.Text...)
		}
	}
	return string(out)
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
