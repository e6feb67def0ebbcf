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
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
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
	cur      int  // open text or thinking block, -1 when none
	thinking bool // cur is a thinking block
	finished bool
	usage    usageMetadata // the counts last priced
	priced   llm.Usage     // and the usage they gave
	hasUsage bool
}

func readStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder) *llm.AssistantMessage {
	st := &streamState{b: b, cur: -1}
	var fail *llm.ProviderError
	var fast fastDecoder
	var ch chunk
	err := llm.ReadEventsRaw(body, func(_ string, data []byte) bool {
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return true
		}
		if !fastPath || !fast.decode(data, &ch) {
			ch = chunk{}
			if err := json.Unmarshal(data, &ch); err != nil {
				fail = llm.MalformedError("Gemini chunk", err, string(data))
				return false
			}
		}
		if ch.Error != nil {
			typ := ch.Error.Status
			if typ == "" && ch.Error.Code != 0 {
				typ = strconv.Itoa(ch.Error.Code)
			}
			fail = llm.StreamError(typ, ch.Error.Message)
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
