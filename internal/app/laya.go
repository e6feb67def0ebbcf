package app

import (
	"context"

	"github.com/relay-agent/relay/internal/llm"
)

// Hook points for the Laya router (laya/auto). The runtime calls these at
// fixed places; their bodies own the routing. Until a router is wired they
// are pass-throughs.

// routePrompt runs before a user prompt is sent (after the harness saw it).
func (r *Runtime) routePrompt(ctx context.Context, text string) error { return nil }

// requestModel is the physical model and thinking level for the next
// request (the selected model unless a router resolved a virtual one).
func (r *Runtime) requestModel() (*llm.Model, llm.ThinkingLevel) { return r.Model(), r.ThinkingLevel() }

// augmentRequest may add request-time messages (e.g. a hidden plan after
// the latest user message). It must not modify msgs.
func (r *Runtime) augmentRequest(msgs []llm.Message) []llm.Message { return msgs }

// observeAssistant sees every finished assistant message.
func (r *Runtime) observeAssistant(msg *llm.AssistantMessage) {}

// observeToolResult sees every tool result.
func (r *Runtime) observeToolResult(call *llm.ToolCall, res *llm.ToolResultMessage) {}
