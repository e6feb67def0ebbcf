package responses

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// CodexClient is the "openai-codex-responses" wire client: the Responses
// API as ChatGPT's Codex backend serves it to a ChatGPT Plus/Pro sign-in.
// It shares the request conversion and the stream reader with Client; what
// differs is the endpoint (<baseUrl>/codex/responses), the headers (the
// account id taken from the token, originator, session ids) and the body
// (the system prompt goes in "instructions", not in the input; no output
// limit; verbosity, tool choice and parallel calls as the Codex CLI sends
// them).
type CodexClient struct{}

// NewCodex returns a CodexClient.
func NewCodex() *CodexClient { return &CodexClient{} }

var _ llm.Client = (*CodexClient)(nil)

// DefaultCodexBaseURL is ChatGPT's backend (models without a baseUrl).
const DefaultCodexBaseURL = "https://chatgpt.com/backend-api"

const (
	codexJWTClaim    = "https://api.openai.com/auth"
	codexOriginator  = "pi" // what the original sends
	codexInstruction = "You are a helpful assistant."
)

// Stream sends req and streams the answer through emit.
func (c *CodexClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if pe := llm.CheckRequest(req); pe != nil {
		return b.Fail(pe)
	}
	account, err := CodexAccountID(req.APIKey)
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrAuth, Message: err.Error() + "; sign in again: run /login " + req.Model.Provider})
	}
	session := ""
	if req.EffectiveCacheRetention() != llm.CacheNone {
		session = clamp(req.SessionID, cacheKeyLimit)
	}
	url, body := CodexURL(req.Model.BaseURL), buildCodexBody(req, session)
	headers := func(h http.Header) {
		llm.BearerAuth(h, req.APIKey)
		h.Set("chatgpt-account-id", account)
		h.Set("originator", codexOriginator)
		h.Set("OpenAI-Beta", "responses=experimental")
		h.Set("Accept", "text/event-stream")
		if session != "" {
			h.Set("session-id", session)
			h.Set("x-client-request-id", session)
		}
	}
	// transport auto (the default) and websocket*: the Codex backend
	// serves the websocket mode; SSE when the socket fails before output.
	if msg, ok := streamWebsocketFirst(ctx, req, url, body, headers, b); ok {
		return msg
	}
	resp, perr := llm.PostSSEEncoded(ctx, req, url, body, headers, zstdBody)
	if perr != nil {
		return b.Fail(codexError(perr))
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b)
}

// CodexURL is the responses endpoint under a Codex base URL (the base
// itself when it already ends in /codex/responses).
func CodexURL(base string) string {
	u := strings.TrimRight(strings.TrimSpace(base), "/")
	if u == "" {
		u = DefaultCodexBaseURL
	}
	switch {
	case strings.HasSuffix(u, "/codex/responses"):
		return u
	case strings.HasSuffix(u, "/codex"):
		return u + "/responses"
	}
	return u + "/codex/responses"
}

// CodexAccountID reads the ChatGPT account id a Codex access token
// carries (the chatgpt_account_id claim under
// https://api.openai.com/auth); the backend wants it as a header.
func CodexAccountID(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) == 3 {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
		if err != nil {
			raw, err = base64.StdEncoding.DecodeString(parts[1])
		}
		var claims map[string]json.RawMessage
		if err == nil && json.Unmarshal(raw, &claims) == nil {
			var a struct {
				ID string `json:"chatgpt_account_id"`
			}
			if json.Unmarshal(claims[codexJWTClaim], &a) == nil && a.ID != "" {
				return a.ID, nil
			}
		}
	}
	return "", fmt.Errorf("the %s token carries no ChatGPT account id (not a ChatGPT sign-in)", "openai-codex")
}

// buildCodexBody is buildBody reshaped for the Codex backend.
func buildCodexBody(req *llm.Request, session string) body {
	b := buildBody(req)
	delete(b, "max_output_tokens") // the backend rejects it
	delete(b, "prompt_cache_retention")
	delete(b, "prompt_cache_key")
	if session != "" {
		b["prompt_cache_key"] = session
	}
	// The system prompt is the instructions, never an input item.
	if in, ok := b["input"].([]any); ok && req.SystemPrompt != "" && len(in) > 0 {
		if first, ok := in[0].(body); ok && (first["role"] == "system" || first["role"] == "developer") {
			b["input"] = in[1:]
		}
	}
	instructions := req.SystemPrompt
	if strings.TrimSpace(instructions) == "" {
		instructions = codexInstruction
	}
	b["instructions"] = instructions
	b["text"] = body{"verbosity": "low"}
	b["include"] = []string{"reasoning.encrypted_content"}
	b["tool_choice"] = "auto"
	b["parallel_tool_calls"] = true
	return b
}

// codexError says a usage limit the way the original does (it is not
// retried: waiting seconds does not lift it).
func codexError(pe *llm.ProviderError) *llm.ProviderError {
	l := strings.ToLower(pe.Message)
	if pe.Status != http.StatusTooManyRequests && !strings.Contains(l, "usage_limit_reached") && !strings.Contains(l, "usage_not_included") {
		return pe
	}
	out := *pe
	out.Kind, out.Message = llm.ErrQuota, "You have hit your ChatGPT usage limit ("+pe.Message+")"
	return &out
}
