// Package anthropic is the "anthropic-messages" wire client: Anthropic's
// streaming Messages API (and compatible endpoints) over net/http.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// APIVersion is the anthropic-version header value.
const APIVersion = "2023-06-01"

// claudeCodeVersion is the Claude Code version OAuth requests present.
const claudeCodeVersion = "2.1.280"

// Client streams Anthropic messages. The zero value is ready to use.
type Client struct {
	// UserAgent overrides the User-Agent of API-key requests.
	UserAgent string
	// Federation, when set, supplies a bearer token for requests whose key
	// is llm.AmbientKey (workload identity federation).
	Federation *Federation
}

// New returns a Client.
func New() *Client { return &Client{} }

var _ llm.Client = (*Client)(nil)

// Stream sends req and streams the answer through emit. It never fails with
// a Go error: failures end the message with stop reason error (or aborted
// when ctx is cancelled), keeping what streamed.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if req.Model == nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "no model"})
	}
	if req.APIKey == llm.AmbientKey && c.Federation != nil {
		tok, pe := c.Federation.Token(ctx, req.HTTPClient, req.Model.BaseURL)
		if pe != nil {
			return b.Fail(pe)
		}
		r := *req
		r.APIKey = ""
		r.Headers = map[string]string{"Authorization": "Bearer " + tok}
		for k, v := range req.Headers {
			if !strings.EqualFold(k, "authorization") {
				r.Headers[k] = v
			}
		}
		req = &r
	}
	if pe := llm.MissingKey(req, "authorization", "x-api-key", "cf-aig-authorization"); pe != nil {
		return b.Fail(pe)
	}
	p := buildPlan(req)
	body, err := newPayload(&p.body)
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "encode request: " + err.Error()})
	}
	url := strings.TrimRight(req.Model.BaseURL, "/") + "/v1/messages"
	resp, perr := llm.Send(ctx, req, func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body.body())
		if err != nil {
			return nil, err
		}
		hr.ContentLength = body.size
		hr.GetBody = func() (io.ReadCloser, error) { return body.body(), nil }
		c.headers(hr.Header, req, p)
		return hr, nil
	})
	if perr != nil {
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	s := &streamState{b: b, tools: req.Tools, oauth: p.oauth, blocks: map[int]int{}}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		// A proxy or compatible server that ignored stream:true, or sent
		// an error with status 200.
		return s.whole(ctx, resp.Body)
	}
	err = llm.ReadEventsRaw(resp.Body, s.handle)
	switch {
	case s.failure != nil:
		return b.Fail(s.failure)
	case ctx.Err() != nil:
		return b.FailWith(ctx, ctx.Err())
	case err != nil && !errors.Is(err, io.EOF):
		return b.FailWith(ctx, err)
	case !s.stopped:
		if s.started {
			return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: "Anthropic stream ended before message_stop"})
		}
		return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: "Anthropic stream ended without a response"})
	case s.stopReason == "":
		return b.Fail(&llm.ProviderError{Kind: llm.ErrMalformed, Message: "Anthropic stream ended without a stop reason"})
	}
	return b.Finish()
}

func (c *Client) headers(h http.Header, req *llm.Request, p *plan) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("anthropic-version", APIVersion)
	h.Set("anthropic-dangerous-direct-browser-access", "true")
	switch {
	case p.oauth:
		h.Set("Authorization", "Bearer "+req.APIKey)
		h.Set("User-Agent", "claude-cli/"+claudeCodeVersion)
		h.Set("x-app", "cli")
	case req.APIKey != "":
		h.Set("x-api-key", req.APIKey)
	}
	if !p.oauth {
		ua := c.UserAgent
		if ua == "" {
			ua = "relay"
		}
		h.Set("User-Agent", ua)
	}
	if sid := req.SessionID; sid != "" && req.EffectiveCacheRetention() != llm.CacheNone &&
		(req.Model.Provider == "openrouter" || strings.Contains(req.Model.BaseURL, "openrouter.ai")) {
		h.Set("x-session-id", sid)
	}
	if len(p.betas) > 0 {
		h.Set("anthropic-beta", strings.Join(p.betas, ","))
	}
	// Configured headers win, including a configured anthropic-beta list
	// (an empty value removes the header).
	llm.ApplyHeaders(h, req.Model, req)
	if v, ok := h["Anthropic-Beta"]; ok && len(v) == 1 && strings.TrimSpace(v[0]) == "" {
		h.Del("anthropic-beta")
	}
}

// streamState turns Messages API events into builder calls.
type streamState struct {
	b      *llm.MessageBuilder
	tools  []llm.ToolSpec
	oauth  bool
	blocks map[int]int // API block index -> content index

	started    bool // message_start seen
	stopped    bool // message_stop seen
	stopReason string
	failure    *llm.ProviderError
	usage      llm.Usage
	scan       jsonx.Scanner // of the content_block_delta fast path
}

type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheCreation            *struct {
		Ephemeral1h *int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	OutputTokensDetails *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

type wireEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string     `json:"id"`
		Model string     `json:"model"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
		StopDetails *struct {
			Explanation string `json:"explanation"`
		} `json:"stop_details"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// handle processes one SSE event; false stops the stream. data is only
// valid during the call.
func (s *streamState) handle(event string, data []byte) bool {
	switch event {
	case "message_start", "message_delta", "message_stop",
		"content_block_start", "content_block_delta", "content_block_stop", "error":
	default:
		return true // ping and unknown events
	}
	if event == "content_block_delta" {
		if index, typ, value, ok := fastDelta(&s.scan, data); ok {
			s.delta(index, typ, value)
			return true
		}
	}
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		s.failure = llm.MalformedError("Anthropic "+event+" event", err, string(data))
		return false
	}
	if event == "error" || w.Type == "error" {
		typ, msg := "", string(data)
		if w.Error != nil {
			typ, msg = w.Error.Type, w.Error.Message
		}
		s.failure = llm.StreamError(typ, msg)
		return false
	}
	b := s.b
	switch w.Type {
	case "message_start":
		s.started = true
		if w.Message != nil {
			b.SetResponseID(w.Message.ID)
			b.SetResponseModel(w.Message.Model)
			s.addUsage(w.Message.Usage)
		}
	case "content_block_start":
		cb := w.ContentBlock
		if cb == nil {
			return true
		}
		switch cb.Type {
		case "text":
			idx := b.StartText()
			s.blocks[w.Index] = idx
			b.AppendText(idx, cb.Text)
		case "thinking":
			idx := b.StartThinking()
			s.blocks[w.Index] = idx
			b.AppendThinking(idx, cb.Thinking)
			if cb.Signature != "" {
				b.SetThinkingSignature(idx, cb.Signature)
			}
		case "redacted_thinking":
			// Complete on arrival; content_block_stop finds it closed.
			s.blocks[w.Index] = b.AddRedactedThinking("[Reasoning redacted]", cb.Data)
		case "tool_use":
			name := cb.Name
			if s.oauth {
				name = fromClaudeCodeName(name, s.tools)
			}
			idx := b.StartToolCall(cb.ID, name)
			s.blocks[w.Index] = idx
			if in := bytes.TrimSpace(cb.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
				b.AppendToolCallArgs(idx, string(in))
			}
		}
	case "content_block_delta":
		if w.Delta != nil {
			d := w.Delta
			s.delta(w.Index, d.Type, d.Text+d.Thinking+d.Signature+d.PartialJSON)
		}
	case "content_block_stop":
		if idx, ok := s.blocks[w.Index]; ok {
			switch b.Message().Content[idx].(type) {
			case *llm.TextContent:
				b.EndText(idx)
			case *llm.ThinkingContent:
				b.EndThinking(idx)
			case *llm.ToolCall:
				b.EndToolCall(idx)
			}
		}
	case "message_delta":
		if w.Delta != nil && w.Delta.StopReason != "" {
			s.stopReason = w.Delta.StopReason
			reason, errMsg := mapStopReason(w.Delta.StopReason, w.Delta.StopDetails)
			b.SetStopReason(reason, w.Delta.StopReason)
			if errMsg != "" {
				b.Message().ErrorMessage = errMsg
			}
		}
		s.addUsage(w.Usage)
	case "message_stop":
		s.stopped = true
		return false
	}
	return true
}

// maxWholeBody bounds a non-streamed answer.
const maxWholeBody = 64 << 20

// whole handles a complete (non-streamed) JSON answer: a message is replayed
// through the builder as if streamed; an error body becomes the error.
func (s *streamState) whole(ctx context.Context, body io.Reader) *llm.AssistantMessage {
	data, err := io.ReadAll(io.LimitReader(body, maxWholeBody))
	if err != nil {
		return s.b.FailWith(ctx, err)
	}
	var m struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Model   string `json:"model"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			Signature string          `json:"signature"`
			Data      string          `json:"data"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason  string `json:"stop_reason"`
		StopDetails *struct {
			Explanation string `json:"explanation"`
		} `json:"stop_details"`
		Usage *wireUsage `json:"usage"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return s.b.Fail(llm.MalformedError("Anthropic response", err, string(data)))
	}
	if m.Type == "error" || m.Error != nil {
		typ, msg := "", string(data)
		if m.Error != nil {
			typ, msg = m.Error.Type, m.Error.Message
		}
		return s.b.Fail(llm.StreamError(typ, msg))
	}
	if m.Type != "message" {
		return s.b.Fail(llm.MalformedError("Anthropic response", fmt.Errorf("type %q", m.Type), string(data)))
	}
	b := s.b
	b.SetResponseID(m.ID)
	b.SetResponseModel(m.Model)
	s.addUsage(m.Usage)
	for _, c := range m.Content {
		switch c.Type {
		case "text":
			i := b.StartText()
			b.AppendText(i, c.Text)
			b.EndText(i)
		case "thinking":
			i := b.StartThinking()
			b.AppendThinking(i, c.Thinking)
			b.SetThinkingSignature(i, c.Signature)
			b.EndThinking(i)
		case "redacted_thinking":
			b.AddRedactedThinking("[Reasoning redacted]", c.Data)
		case "tool_use":
			name := c.Name
			if s.oauth {
				name = fromClaudeCodeName(name, s.tools)
			}
			i := b.StartToolCall(c.ID, name)
			if len(c.Input) > 0 {
				b.AppendToolCallArgs(i, string(c.Input))
			}
			b.EndToolCall(i)
		}
	}
	if m.StopReason == "" {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrMalformed, Message: "Anthropic response without a stop reason"})
	}
	reason, errMsg := mapStopReason(m.StopReason, m.StopDetails)
	b.SetStopReason(reason, m.StopReason)
	if errMsg != "" {
		b.Message().ErrorMessage = errMsg
	}
	return b.Finish()
}

// delta applies a content_block_delta; value is the member that goes with
// typ (text, thinking, signature or partial_json).
func (s *streamState) delta(index int, typ, value string) {
	idx, ok := s.blocks[index]
	if !ok {
		return
	}
	switch typ {
	case "text_delta":
		s.b.AppendText(idx, value)
	case "thinking_delta":
		s.b.AppendThinking(idx, value)
	case "signature_delta":
		s.b.AppendThinkingSignature(idx, value)
	case "input_json_delta":
		s.b.AppendToolCallArgs(idx, value)
	}
}

// addUsage applies the members present (proxies may omit some in
// message_delta; what message_start said stays).
func (s *streamState) addUsage(u *wireUsage) {
	if u == nil {
		return
	}
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.usage.Input, u.InputTokens)
	set(&s.usage.Output, u.OutputTokens)
	set(&s.usage.CacheRead, u.CacheReadInputTokens)
	set(&s.usage.CacheWrite, u.CacheCreationInputTokens)
	if u.CacheCreation != nil {
		set(&s.usage.CacheWrite1h, u.CacheCreation.Ephemeral1h)
	}
	if u.OutputTokensDetails != nil {
		set(&s.usage.Reasoning, u.OutputTokensDetails.ThinkingTokens)
	}
	s.b.SetUsage(s.usage)
}

// mapStopReason maps Anthropic's stop_reason (upstream-spec-core.md §2.4).
func mapStopReason(r string, details *struct {
	Explanation string `json:"explanation"`
}) (llm.StopReason, string) {
	switch r {
	case "end_turn", "pause_turn", "stop_sequence":
		return llm.StopStop, ""
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopLength, ""
	case "tool_use":
		return llm.StopToolUse, ""
	case "refusal":
		if details != nil && details.Explanation != "" {
			return llm.StopError, details.Explanation
		}
		return llm.StopError, "The model refused to complete the request"
	case "sensitive":
		return llm.StopError, "Provider stopped with: sensitive"
	}
	return llm.StopError, "Unhandled stop reason: " + r
}
