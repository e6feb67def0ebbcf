package app

import (
	"context"
	"strings"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
)

// Input is one prompt of a one-shot run.
type Input struct {
	Text   string
	Images []llm.ImageContent
}

// RunPrompts sends each input in order, each after the previous settled.
// An input naming a registered command with a handler ("/session",
// "/export out.html", an extension's command) runs it instead, and its
// output goes to onCommand (nil = dropped). It stops early when ctx is
// cancelled.
func RunPrompts(ctx context.Context, r *Runtime, inputs []Input, onCommand func(commands.Output)) error {
	for _, in := range inputs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if strings.HasPrefix(in.Text, "/") && len(in.Images) == 0 {
			out, handled, err := r.cmds.Run(ctx, in.Text)
			if err != nil {
				return err
			}
			if handled {
				if onCommand != nil {
					onCommand(out)
				}
				continue
			}
		}
		if err := r.Prompt(ctx, in.Text, in.Images); err != nil {
			return err
		}
	}
	return nil
}
