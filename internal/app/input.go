package app

import (
	"context"

	"github.com/relay-agent/relay/internal/llm"
)

// Input is one prompt of a one-shot run.
type Input struct {
	Text   string
	Images []llm.ImageContent
}

// RunPrompts sends each input in order, each after the previous settled.
// It stops early when ctx is cancelled.
func (r *Runtime) RunPrompts(ctx context.Context, inputs []Input) error {
	for _, in := range inputs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := r.Prompt(ctx, in.Text, in.Images); err != nil {
			return err
		}
	}
	return nil
}
