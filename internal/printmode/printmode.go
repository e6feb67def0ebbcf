// Package printmode is the one-shot text front end (`relay -p`): the final
// answer on stdout, diagnostics on stderr.
package printmode

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
)

// Run sends the inputs and prints the text of the last assistant message.
// It returns the exit code: 1 when the reply failed or was aborted.
func Run(ctx context.Context, rt *app.Runtime, inputs []app.Input, stdout, stderr io.Writer) int {
	// The reply is the last assistant message the runs produced, not the
	// last one in context: overflow recovery omits a failed attempt from
	// context, and its error must still decide the exit status.
	var mu sync.Mutex
	var reply *llm.AssistantMessage
	unsub := rt.Subscribe(func(e agent.Event) {
		if a, ok := e.Message.(*llm.AssistantMessage); ok && e.Type == agent.MessageEnd {
			mu.Lock()
			reply = a
			mu.Unlock()
		}
	})
	err := app.RunPrompts(ctx, rt, inputs, func(out commands.Output) {
		if out.Text != "" {
			io.WriteString(stdout, out.Text+"\n")
		}
	})
	unsub()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	mu.Lock()
	last := reply
	mu.Unlock()
	if last == nil {
		// No run happened (only commands): the session's last reply.
		last = lastAssistant(rt.ContextMessages())
	}
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

// lastAssistant is the newest assistant message of msgs, nil when none.
func lastAssistant(msgs []llm.Message) *llm.AssistantMessage {
	for i := len(msgs) - 1; i >= 0; i-- {
		if a, ok := msgs[i].(*llm.AssistantMessage); ok {
			return a
		}
	}
	return nil
}
