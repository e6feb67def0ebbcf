// Package jsonmode is the one-shot JSON event stream (`relay --mode json`):
// the session header, then one JSON record per event, LF-framed.
package jsonmode

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/jsonl"
)

// coalesceWindow bounds how long a token delta may wait to be merged with
// the next one of the same block.
const coalesceWindow = 16 * time.Millisecond

// Run writes the session header, then every event of the inputs' runs.
// A failed or aborted reply does not change the exit status.
func Run(ctx context.Context, rt *app.Runtime, inputs []app.Input, stdout, stderr io.Writer) int {
	w := jsonl.NewWriter(stdout)
	if h := rt.Session().Header(); h != nil {
		if err := w.Write(h, true); err != nil {
			fmt.Fprintf(stderr, "Error: write header: %v\n", err)
			return 1
		}
	}
	co := agent.NewCoalescer(coalesceWindow, func(e agent.Event) { _ = w.Write(e, e.Type != agent.MessageUpdate) })
	unsub := rt.Subscribe(co.Push)
	defer unsub()
	// Command output is text for people: stderr, never the event stream.
	err := app.RunPrompts(ctx, rt, inputs, func(out commands.Output) {
		if out.Text != "" {
			fmt.Fprintln(stderr, out.Text)
		}
	})
	co.Flush()
	w.Flush()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}
