// Package openai is the "openai-completions" wire client: OpenAI's
// /chat/completions streaming API and the many servers that imitate it
// (llama.cpp, vLLM, Ollama, OpenRouter, Groq, DeepSeek, ...), whose
// deviations are described by the model's compat settings.
package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Client streams chat completions. The zero value is ready to use.
type Client struct{}

// New returns a Client.
func New() *Client { return &Client{} }

var _ llm.Client = (*Client)(nil)

// Stream sends req and streams the answer through emit. It never fails with
// a Go error: failures end the message with stop reason error or aborted.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if pe := llm.CheckRequest(req, "authorization", "cf-aig-authorization"); pe != nil {
		return b.Fail(pe)
	}
	url := strings.TrimRight(req.Model.BaseURL, "/") + "/chat/completions"
	resp, perr := llm.PostSSE(ctx, req, url, buildBody(req, resolveCompat(req.Model)), func(h http.Header) {
		llm.BearerAuth(h, req.APIKey)
		llm.CopilotHeaders(h, req)
	})
	if perr != nil {
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b, req.Model)
}
