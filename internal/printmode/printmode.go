// Package printmode is the one-shot text front end (`relay -p`): the final
// answer on stdout, diagnostics on stderr.
package printmode

import (
	"context"
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/llm"
)

// Run sends the inputs and prints the text of the last assistant message.
// It returns the exit code: 1 when the reply failed or was aborted.
func Run(ctx context.Context, rt *app.Runtime, inputs []app.Input, stdout, stderr io.Writer) int {
	if err := rt.RunPrompts(ctx, inputs); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	last := rt.LastAssistant()
	if last == nil {
		return 0
	}
	if last.StopReason == llm.StopError || last.StopReason == llm.StopAborted {
		msg := last.ErrorMessage
		if msg == "" {
			msg = "Request " + string(last.StopReason)
		}
		fmt.Fprintln(stderr, msg)
		return 1
	}
	for _, b := range last.Content {
		if t, ok := b.(*llm.TextContent); ok {
			io.WriteString(stdout, t.Text+"\n")
		}
	}
	return 0
}
