package app

import (
	"context"

	"github.com/relay-agent/relay/internal/llm"
)

// withSystem runs context_with_system on a built request: the handlers
// see its messages behind one system message carrying the prompt (a
// before_agent_start replacement included) and the tool declarations, and
// what they return is sent as returned: the system messages make the
// request's prompt and tools (folded in order), the others its messages.
func (r *Runtime) withSystem(ctx context.Context, req *llm.Request, state llm.SystemState) {
	if !r.hooks.ContextWithSystem.Has() {
		return
	}
	head := state.Checkpoint(r.now())
	if req.SystemPrompt != state.Prompt() {
		head.Sections, head.Content = nil, llm.StringContent(req.SystemPrompt)
	}
	msgs := make([]llm.Message, 0, len(req.Messages)+1)
	msgs = append(append(msgs, head), req.Messages...)
	out := r.hooks.RunContextWithSystem(ctx, req.Model, msgs)
	var sys llm.SystemState
	rest := make([]llm.Message, 0, len(out))
	for _, m := range out {
		if sm, ok := m.(*llm.SystemMessage); ok {
			sys.Apply(sm)
			continue
		}
		rest = append(rest, m)
	}
	req.SystemPrompt, req.Tools, req.Messages = sys.Prompt(), sys.Tools, llm.ToModelMessages(rest)
}
