// Package responses is the "openai-responses" wire client: OpenAI's
// /responses streaming API, with reasoning items (summaries and encrypted
// content) kept for replay and prompt-cache keys per session.
package responses

import (
	"context"
	"net/http"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Client streams Responses API answers. The zero value is ready to use.
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
	url := strings.TrimRight(req.Model.BaseURL, "/") + "/responses"
	headers := func(h http.Header) {
		llm.BearerAuth(h, req.APIKey)
		llm.CopilotHeaders(h, req)
	}
	body := buildBody(req)
	if msg, ok := streamWebsocketFirst(ctx, req, url, body, headers, b); ok {
		return msg
	}
	resp, perr := llm.PostSSE(ctx, req, url, body, headers)
	if perr != nil {
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b)
}
