package ext

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// builtinRead stands for relay's read tool.
type builtinRead struct{}

func (builtinRead) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "read", Description: "built-in read", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (builtinRead) Exposure() tool.Exposure { return "" }
func (builtinRead) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: "built-in"}}}
}

func TestToolOverridesBuiltin(t *testing.T) {
	f := start(t, "override.ts")
	reg, _ := tool.NewRegistry()
	if err := reg.Add(builtinRead{}); err != nil {
		t.Fatal(err)
	}
	if errs := f.m.BindTools(reg); len(errs) > 0 {
		t.Fatalf("BindTools: %v", errs)
	}
	got, _ := reg.Get("read")
	if _, ok := got.(*extTool); !ok {
		t.Fatalf("read is %T, want the extension's tool", got)
	}
	r := got.Execute(context.Background(), json.RawMessage(`{"path":"a.txt"}`), nil)
	if r.Content.PlainText() != "audited a.txt" {
		t.Errorf("read ran %q", r.Content.PlainText())
	}
	if by := f.m.Overrides()["read"]; !strings.HasSuffix(by, "override.ts") {
		t.Errorf("Overrides() = %v", f.m.Overrides())
	}
	if n := len(reg.Names()); n != 1 {
		t.Errorf("%d tools, want 1 (the override replaces in place)", n)
	}
	// When the extension's registrations go (a host that keeps
	// crashing), the built-in comes back.
	f.m.mu.Lock()
	f.m.clearRegs()
	f.m.mu.Unlock()
	if got, _ := reg.Get("read"); got == nil || got.Spec().Description != "built-in read" {
		t.Errorf("after the extension went, read is %v", got)
	}
}
