package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// chunk is one GenerateContentResponse of the stream.
type chunk struct {
	Candidates     []candidate    `json:"candidates"`
	UsageMetadata  *usageMetadata `json:"usageMetadata"`
	ModelVersion   string         `json:"modelVersion"`
	ResponseID     string         `json:"responseId"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	Error *apiError `json:"error"`
}

// apiError is Google's error object, inside a 200 stream.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

func (e *apiError) providerError() *llm.ProviderError {
	typ := e.Status
	if typ == "" && e.Code != 0 {
		typ = strconv.Itoa(e.Code)
	}
	return llm.StreamError(typ, e.Message)
}

// envelope is one event of a Cloud Code Assist stream: the chunk wrapped
// in "response" (with a traceId), or an error.
type envelope struct {
	Response json.RawMessage `json:"response"`
	Error    *apiError       `json:"error"`
}

// StreamOptions adapt the stream reading to servers that wrap the Gemini
// stream (Cloud Code Assist). The zero value reads the Gemini API.
type StreamOptions struct {
	// Envelope: each event is {"response": chunk}; an {"error": ...}
	// event fails the stream and "[DONE]" ends it.
	Envelope bool
	// OtherEndsToolCalls: finishReason OTHER after a function call is a
	// normal tool-use stop (Cloud Code's Claude backend ends those turns
	// so).
	OtherEndsToolCalls bool
	// EmptyError, when set, fails a stream that finished without any
	// content with this message, as a retryable server error.
	EmptyError string
}

type candidate struct {
	Content struct {
		Parts []part `json:"parts"`
	} `json:"content"`
	FinishReason  string `json:"finishReason"`
	FinishMessage string `json:"finishMessage"`
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
}

type part struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// callCounter makes generated tool-call ids unique within the process.
var callCounter atomic.Int64

type streamState struct {
	b        *llm.MessageBuilder
	opts     StreamOptions
	cur      int  // open text or thinking block, -1 when none
	thinking bool // cur is a thinking block
	finished bool
	usage    usageMetadata // the counts last priced
	priced   llm.Usage     // and the usage they gave
	hasUsage bool
}

// ReadStream reads a streamGenerateContent?alt=sse answer from body into
// b (which the caller began on body) and finishes the message. o adapts
// it to servers that wrap the Gemini stream.
func ReadStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder, o StreamOptions) *llm.AssistantMessage {
	st := &streamState{b: b, opts: o, cur: -1}
	var fail *llm.ProviderError
	var fast fastDecoder
	var ch chunk
	err := llm.ReadEventsRaw(body, func(_ string, data []byte) bool {
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return true
		}
		if o.Envelope {
			if string(data) == "[DONE]" {
				return false
			}
			var env envelope
			if err := json.Unmarshal(data, &env); err != nil {
				fail = llm.MalformedError("Cloud Code Assist event", err, string(data))
				return false
			}
			if env.Error != nil {
				fail = env.Error.providerError()
				return false
			}
			if len(env.Response) == 0 || string(env.Response) == "null" {
				fail = llm.MalformedError("Cloud Code Assist event", errors.New("no response"), string(data))
				return false
			}
			data = env.Response
		}
		if !fastPath || !fast.decode(data, &ch) {
			ch = chunk{}
			if err := json.Unmarshal(data, &ch); err != nil {
				fail = llm.MalformedError("Gemini chunk", err, string(data))
				return false
			}
		}
		if ch.Error != nil {
			fail = ch.Error.providerError()
			return false
		}
		st.apply(&ch)
		return true
	})
	if fail != nil {
		return b.Fail(fail)
	}
	if pe := llm.ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	if err != nil && !(errors.Is(err, io.EOF) && st.finished) {
		return b.FailWith(ctx, err)
	}
	if !st.finished {
		return b.FailWith(ctx, io.EOF)
	}
	if o.EmptyError != "" && !b.HasContent() && b.Message().StopReason != llm.StopError {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrServer, Message: o.EmptyError})
	}
	return b.Finish()
}

func (st *streamState) closeCurrent() {
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

func (st *streamState) apply(ch *chunk) {
	b := st.b
	msg := b.Message()
	if ch.ResponseID != "" && msg.ResponseID == "" {
		b.SetResponseID(strings.Clone(ch.ResponseID))
	}
	if ch.ModelVersion != "" && msg.ResponseModel == "" && ch.ModelVersion != msg.Model {
		b.SetResponseModel(strings.Clone(ch.ModelVersion))
	}
	if u := ch.UsageMetadata; u != nil && (!st.hasUsage || *u != st.usage || msg.Usage != st.priced) {
		// Most chunks repeat the counts of the previous one: pricing them
		// again would give the same usage.
		st.usage = *u
		// promptTokenCount includes the cached part; thoughts are billed as output.
		b.SetUsage(llm.Usage{
			Input:     max(0, u.PromptTokenCount-u.CachedContentTokenCount),
			Output:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheRead: u.CachedContentTokenCount,
			Reasoning: u.ThoughtsTokenCount,
		})
		st.priced, st.hasUsage = msg.Usage, true
	}
	if len(ch.Candidates) == 0 {
		if pf := ch.PromptFeedback; pf != nil && pf.BlockReason != "" {
			st.finished = true
			b.SetStopReason(llm.StopError, pf.BlockReason)
			b.Message().ErrorMessage = "Prompt blocked: " + pf.BlockReason
		}
		return
	}
	cand := &ch.Candidates[0]
	for i := range cand.Content.Parts {
		st.part(&cand.Content.Parts[i])
	}
	if cand.FinishReason != "" {
		st.finished = true
		reason := llm.StopError
		switch cand.FinishReason {
		case "STOP":
			reason = llm.StopStop
			if len(b.Message().ToolCalls()) > 0 {
				reason = llm.StopToolUse
			}
		case "MAX_TOKENS":
			reason = llm.StopLength
		case "OTHER":
			if st.opts.OtherEndsToolCalls && len(b.Message().ToolCalls()) > 0 {
				reason = llm.StopToolUse
				break
			}
			fallthrough
		default:
			msg := "Provider finishReason: " + cand.FinishReason
			if cand.FinishMessage != "" {
				msg += ": " + cand.FinishMessage
			}
			b.Message().ErrorMessage = msg
		}
		b.SetStopReason(reason, cand.FinishReason)
	}
}

func (st *streamState) part(p *part) {
	b := st.b
	if p.Text != nil && *p.Text == "" {
		// Empty parts close a stream or carry a late signature.
		if p.ThoughtSignature != "" && st.cur >= 0 {
			if st.thinking {
				b.SetThinkingSignature(st.cur, p.ThoughtSignature)
			} else {
				b.SetTextSignature(st.cur, p.ThoughtSignature)
			}
		}
	} else if p.Text != nil {
		if st.cur < 0 || st.thinking != p.Thought {
			st.closeCurrent()
			if p.Thought {
				st.cur = b.StartThinking()
			} else {
				st.cur = b.StartText()
			}
			st.thinking = p.Thought
		}
		if p.Thought {
			b.AppendThinking(st.cur, *p.Text)
			// Some backends send the signature only on the first delta.
			if p.ThoughtSignature != "" {
				b.SetThinkingSignature(st.cur, p.ThoughtSignature)
			}
		} else {
			b.AppendText(st.cur, *p.Text)
			if p.ThoughtSignature != "" {
				b.SetTextSignature(st.cur, p.ThoughtSignature)
			}
		}
	}
	if fc := p.FunctionCall; fc != nil {
		st.closeCurrent()
		id := fc.ID
		if id == "" || st.hasCall(id) {
			id = fc.Name + "_" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "_" + strconv.FormatInt(callCounter.Add(1), 10)
		}
		idx := b.StartToolCall(id, fc.Name)
		if p.ThoughtSignature != "" {
			b.ToolCall(idx).ThoughtSignature = p.ThoughtSignature
		}
		args := string(fc.Args)
		if args == "" || args == "null" {
			args = "{}"
		}
		b.AppendToolCallArgs(idx, args)
		b.EndToolCall(idx)
	}
}

func (st *streamState) hasCall(id string) bool {
	for _, tc := range st.b.Message().ToolCalls() {
		if tc.ID == id {
			return true
		}
	}
	return false
}
