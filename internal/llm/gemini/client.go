// Package gemini is the "google-generative-ai" wire client: the Gemini API's
// models/{id}:streamGenerateContent?alt=sse, with thought parts as thinking
// blocks and thought signatures kept for replay.
package gemini

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// DefaultBaseURL is used when the model has no base URL.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// Client streams Gemini answers. The zero value is ready to use.
type Client struct{}

// New returns a Client.
func New() *Client { return &Client{} }

var _ llm.Client = (*Client)(nil)

// Stream sends req and streams the answer through emit. It never fails with
// a Go error: failures end the message with stop reason error or aborted.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if pe := llm.CheckRequest(req, "x-goog-api-key", "authorization"); pe != nil {
		return b.Fail(pe)
	}
	base := strings.TrimRight(req.Model.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	endpoint := base + "/models/" + url.PathEscape(req.Model.ID) + ":streamGenerateContent?alt=sse"
	return streamAt(ctx, req, b, endpoint, func(h http.Header) {
		if req.APIKey != "" {
			h.Set("x-goog-api-key", req.APIKey)
		}
	})
}

// StreamAt streams req from endpoint, a streamGenerateContent?alt=sse URL
// of the same wire format (Vertex AI serves Gemini models with it), with
// auth setting the credentials. The caller has checked the request.
func StreamAt(ctx context.Context, req *llm.Request, endpoint string, auth func(http.Header), emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	return streamAt(ctx, req, llm.NewMessageBuilder(req.Model, emit), endpoint, auth)
}

func streamAt(ctx context.Context, req *llm.Request, b *llm.MessageBuilder, endpoint string, auth func(http.Header)) *llm.AssistantMessage {
	resp, perr := llm.PostSSE(ctx, req, endpoint, buildBody(req, Options{}), auth)
	if perr != nil {
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return ReadStream(ctx, resp.Body, b, StreamOptions{})
}
