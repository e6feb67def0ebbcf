// Package openai is the "openai-completions" wire client: OpenAI's
// /chat/completions streaming API and the many servers that imitate it
// (llama.cpp, vLLM, Ollama, OpenRouter, Groq, DeepSeek, ...), whose
// deviations are described by the model's compat settings.
package openai

import (
	"bytes"
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
	if req.Model == nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "no model"})
	}
	if pe := llm.MissingKey(req, "authorization", "cf-aig-authorization"); pe != nil {
		return b.Fail(pe)
	}
	cp := resolveCompat(req.Model)
	payload, err := llm.Marshal(buildBody(req, cp))
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "encode request: " + err.Error()})
	}
	url := strings.TrimRight(req.Model.BaseURL, "/") + "/chat/completions"
	resp, perr := llm.Send(ctx, req, func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "text/event-stream")
		if req.APIKey != "" {
			hr.Header.Set("Authorization", "Bearer "+req.APIKey)
		}
		llm.CopilotHeaders(hr.Header, req)
		llm.ApplyHeaders(hr.Header, req.Model, req)
		return hr, nil
	})
	if perr != nil {
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Start()
	return readStream(ctx, resp.Body, b, req.Model)
}
