package mistral

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/relay-agent/relay/internal/llm"
)

// streamChunk is one completion chunk of the stream.
type streamChunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		FinishReason *string `json:"finish_reason"`
		Delta        struct {
			Content   json.RawMessage `json:"content"` // string or [chunk]
			ToolCalls []struct {
				ID       string `json:"id"`
				Index    *int   `json:"index"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"` // string or object
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		NumCachedTokens     int `json:"num_cached_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
	Object  string `json:"object"`
	Message string `json:"message"`
}

type streamState struct {
	b        *llm.MessageBuilder
	cur      int  // open text or thinking block, -1 when none
	thinking bool // cur is thinking
	tools    map[string]int
	finished bool
}

func readStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder) *llm.AssistantMessage {
	st := &streamState{b: b, cur: -1, tools: map[string]int{}}
	var fail *llm.ProviderError
	done := false
	err := llm.ReadEventsRaw(body, func(_ string, data []byte) bool {
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return true
		}
		if string(data) == "[DONE]" {
			done = true
			return false
		}
		var ch streamChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			fail = llm.MalformedError("Mistral stream chunk", err, string(data))
			return false
		}
		if ch.Error != nil || ch.Object == "error" {
			msg, typ := ch.Message, ch.Object
			if ch.Error != nil {
				msg, typ = ch.Error.Message, ch.Error.Type
			}
			fail = llm.StreamError(typ, msg)
			return false
		}
		fail = st.apply(&ch)
		return fail == nil
	})
	if fail != nil {
		return b.Fail(fail)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return b.FailWith(ctx, err)
	}
	if pe := llm.ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	if !st.finished {
		msg := "Mistral stream ended without a finish reason"
		if !done {
			msg = "connection closed before the response was complete: " + msg
		}
		return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: msg})
	}
	return b.Finish()
}

func (st *streamState) apply(ch *streamChunk) *llm.ProviderError {
	b := st.b
	if ch.ID != "" && b.Message().ResponseID == "" {
		b.SetResponseID(ch.ID)
	}
	b.SetResponseModel(ch.Model)
	if u := ch.Usage; u != nil {
		cached := u.NumCachedTokens
		if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
			cached = u.PromptTokensDetails.CachedTokens
		}
		cached = min(max(cached, 0), u.PromptTokens)
		b.SetUsage(llm.Usage{Input: u.PromptTokens - cached, Output: u.CompletionTokens, CacheRead: cached})
	}
	if len(ch.Choices) == 0 {
		return nil
	}
	c := &ch.Choices[0]
	if pe := st.content(c.Delta.Content); pe != nil {
		return pe
	}
	for _, tc := range c.Delta.ToolCalls {
		st.closeText()
		key := tc.ID
		if tc.Index != nil {
			key = "#" + strconv.Itoa(*tc.Index)
		}
		idx, ok := st.tools[key]
		if !ok {
			id := tc.ID
			if id == "" || id == "null" {
				i := 0
				if tc.Index != nil {
					i = *tc.Index
				}
				id = deriveID("toolcall:"+strconv.Itoa(i), 0)
			}
			idx = b.StartToolCall(id, tc.Function.Name)
			st.tools[key] = idx
		}
		args := tc.Function.Arguments
		if len(args) > 0 && args[0] == '"' {
			var s string
			if json.Unmarshal(args, &s) == nil {
				b.AppendToolCallArgs(idx, s)
			}
		} else if len(args) > 0 && string(args) != "null" {
			b.AppendToolCallArgs(idx, string(args))
		}
	}
	if fr := c.FinishReason; fr != nil && *fr != "" {
		st.finished = true
		switch *fr {
		case "stop":
			b.SetStopReason(llm.StopStop, *fr)
		case "length", "model_length":
			b.SetStopReason(llm.StopLength, *fr)
		case "tool_calls":
			b.SetStopReason(llm.StopToolUse, *fr)
		default:
			b.SetStopReason(llm.StopError, *fr)
			b.Message().ErrorMessage = "Provider stopped with: " + *fr
		}
	}
	return nil
}

// content applies a delta's content: a string, or chunks of text and
// thinking (Magistral). Empty pieces open no block (GLM on Mistral sends
// them around thinking and tool calls; a split thinking block is refused
// on replay).
func (st *streamState) content(raw json.RawMessage) *llm.ProviderError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return llm.MalformedError("Mistral content", err, string(raw))
		}
		st.text(s, false)
		return nil
	}
	var parts []chunk
	if err := json.Unmarshal(raw, &parts); err != nil {
		return llm.MalformedError("Mistral content", err, string(raw))
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			st.text(p.Text, false)
		case "thinking":
			for _, t := range p.Thinking {
				st.text(t.Text, true)
			}
		}
	}
	return nil
}

func (st *streamState) text(s string, thinking bool) {
	if s == "" {
		return
	}
	if st.cur >= 0 && st.thinking != thinking {
		st.closeText()
	}
	if st.cur < 0 {
		if thinking {
			st.cur = st.b.StartThinking()
		} else {
			st.cur = st.b.StartText()
		}
		st.thinking = thinking
	}
	if thinking {
		st.b.AppendThinking(st.cur, s)
	} else {
		st.b.AppendText(st.cur, s)
	}
}

func (st *streamState) closeText() {
	if st.cur < 0 {
		return
	}
	if st.thinking {
		st.b.EndThinking(st.cur)
	} else {
		st.b.EndText(st.cur)
	}
	st.cur = -1
}
