package codemode_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/relay-agent/relay/internal/tool"
)

// BenchmarkEmptyScript is a codemode call whose script does nothing: VM
// start, prelude, result (the budget: 5 ms).
func BenchmarkEmptyScript(b *testing.B) {
	f := newFixture(b)
	args := json.RawMessage(code(`;`))
	ctx := tool.WithCallID(context.Background(), "c")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := f.tool.Execute(ctx, args, nil); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkHundredCalls is a script making 100 calls of a tool that does
// no work, so the time is codemode's overhead (budget: 100 ms).
func BenchmarkHundredCalls(b *testing.B) {
	f := newFixture(b)
	args := json.RawMessage(code(`let n = 0; for (let i = 0; i < 100; i++) n += (await tools.echo({text: "x" + i})).length; return n`))
	ctx := tool.WithCallID(context.Background(), "c")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := f.tool.Execute(ctx, args, nil); r.IsError {
			b.Fatal(r.Content)
		}
	}
	if f.echo.calls.Load() != int32(100*b.N) {
		b.Fatalf("%d calls", f.echo.calls.Load())
	}
}
