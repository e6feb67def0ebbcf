package app

import (
	"context"

	"github.com/relay-agent/relay/internal/llm"
)

// Complete sends one request outside the conversation (a summary, a
// report) with the runtime's credentials, retrying transient failures per
// retry.*; retries are reported as summarization_retry_* events naming
// source. Nothing is appended to the session.
func (r *Runtime) Complete(ctx context.Context, source string, req *llm.Request) *llm.AssistantMessage {
	return r.summarizer(source, "")(ctx, req)
}

// RequestPreview is what the next request would carry, without sending or
// persisting anything.
type RequestPreview struct {
	SystemPrompt string
	Tools        []llm.ToolSpec
	// Messages are the branch's context messages (before the hook seam's
	// context handlers and the provider's conversion).
	Messages []llm.Message
}

// NextRequest previews the next request: the system prompt and tool
// declarations after the patch the next prompt would persist.
func (r *Runtime) NextRequest() RequestPreview {
	msgs := r.ContextMessages()
	state := llm.ReplaySystem(msgs)
	in := r.promptInputs()
	if patch := SystemPatch(&state, BuildSections(in), in.Tools, r.now()); patch != nil {
		state.Apply(patch)
	}
	return RequestPreview{SystemPrompt: state.Prompt(), Tools: state.Tools, Messages: msgs}
}
