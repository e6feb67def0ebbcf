// Package mistral is the "mistral-conversations" wire client: Mistral's
// native chat endpoint ({base}/v1/chat/completions, streamed as SSE), with
// Magistral's thinking chunks, 9-character tool-call ids, prompt_mode /
// reasoning_effort, and prompt caching keyed by session (prompt_cache_key
// and the x-affinity header).
package mistral

import (
	"context"
	"net/http"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// API is the api id of the models this client speaks.
const API = "mistral-conversations"

// DefaultBaseURL is used when the model has none.
const DefaultBaseURL = "https://api.mistral.ai"

// Client streams Mistral answers. The zero value is ready to use.
type Client struct{}

// New returns a Client.
func New() *Client { return &Client{} }

var _ llm.Client = (*Client)(nil)

// Stream sends req and streams the answer through emit.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if pe := llm.CheckRequest(req, "authorization"); pe != nil {
		return b.Fail(pe)
	}
	base := strings.TrimRight(req.Model.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	caching := req.EffectiveCacheRetention() != llm.CacheNone && req.SessionID != ""
	resp, perr := llm.PostSSE(ctx, req, base+"/v1/chat/completions", buildBody(req, caching), func(h http.Header) {
		llm.BearerAuth(h, req.APIKey)
		// The session pins the request to the replica holding its cache,
		// unless the model or request sets the header itself.
		if caching && !hasHeader(req.Model.Headers, "x-affinity") && !hasHeader(req.Headers, "x-affinity") {
			h.Set("x-affinity", req.SessionID)
		}
	})
	if perr != nil {
		perr.Message = "Mistral API error: " + perr.Message
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b)
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
