package responses

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// fastPath can be turned off by tests to check that both decoders agree.
var fastPath = true

// deltaEvent returns the canonical name of a delta event, the events
// decoded without encoding/json (almost all of a long answer), or "".
func deltaEvent(name string) string {
	switch name {
	case "response.output_text.delta":
		return "response.output_text.delta"
	case "response.refusal.delta":
		return "response.refusal.delta"
	case "response.reasoning_summary_text.delta":
		return "response.reasoning_summary_text.delta"
	case "response.function_call_arguments.delta":
		return "response.function_call_arguments.delta"
	}
	return ""
}

// decodeEvent fills e from data without encoding/json and reports
// whether it could. Strings that are kept are cloned (data is reused); the
// raw item is only kept for reasoning items (their replay signature) and
// function calls. Long answers repeat their whole text in
// output_item.done and response.completed: here it is skipped, not copied.
func decodeEvent(p *llm.Scanner, data []byte, e *event, index *int) bool {
	*e = event{}
	p.ResetBytes(data)
	str := func(dst *string) bool {
		s, ok := p.String()
		*dst = p.Detach(s)
		return ok
	}
	ok := p.Object(func(key string) bool {
		switch key {
		case "type":
			s, ok := p.String()
			if t := deltaEvent(s); t != "" {
				e.Type = t
			} else {
				e.Type = strings.Clone(s)
			}
			return ok
		case "output_index":
			n, ok := p.Int()
			*index = n
			e.OutputIndex = index
			return ok
		case "delta":
			return str(&e.Delta)
		case "arguments":
			var a string
			ok := str(&a)
			e.Arguments = &a
			return ok
		case "message":
			return str(&e.Message)
		case "code":
			if p.Null() {
				return true
			}
			var c string
			ok := str(&c)
			e.Code = json.RawMessage(strconv.Quote(c))
			return ok
		case "item":
			start := p.Pos()
			it := &item{}
			if !decodeItem(p, it) {
				return false
			}
			e.parsed = it
			if it.Type == "reasoning" || it.Type == "function_call" {
				e.Item = json.RawMessage(strings.Clone(string(data[start:p.Pos()])))
			}
			return true
		case "response":
			e.Response = &response{}
			return decodeResponse(p, e.Response)
		}
		return p.Skip() // sequence_number, item_id, content_index, logprobs, obfuscation, part ...
	})
	return ok && p.End() && e.Type != ""
}

func decodeItem(p *llm.Scanner, it *item) bool {
	return p.Object(func(key string) bool {
		var dst *string
		switch key {
		case "type":
			dst = &it.Type
		case "id":
			dst = &it.ID
		case "call_id":
			dst = &it.CallID
		case "name":
			dst = &it.Name
		case "arguments":
			dst = &it.Arguments
		case "phase":
			dst = &it.Phase
		case "namespace":
			dst = &it.Namespace
		default:
			return p.Skip()
		}
		if p.Null() {
			return true
		}
		s, ok := p.String()
		*dst = strings.Clone(s)
		return ok
	})
}

func decodeResponse(p *llm.Scanner, r *response) bool {
	return p.Object(func(key string) bool {
		switch key {
		case "id", "model", "status":
			s, ok := p.String()
			s = strings.Clone(s)
			switch key {
			case "id":
				r.ID = s
			case "model":
				r.Model = s
			default:
				r.Status = s
			}
			return ok
		case "usage":
			if p.Null() {
				return true
			}
			r.Usage = &usage{}
			return decodeUsage(p, r.Usage)
		case "error", "incomplete_details":
			// Rare and small: only the failure path reads them.
			return p.Null()
		}
		return p.Skip()
	})
}

func decodeUsage(p *llm.Scanner, u *usage) bool {
	return p.Object(func(key string) bool {
		switch key {
		case "input_tokens":
			n, ok := p.Int()
			u.InputTokens = n
			return ok
		case "output_tokens":
			n, ok := p.Int()
			u.OutputTokens = n
			return ok
		case "input_tokens_details":
			u.InputTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{}
			return p.Object(intMember(p, "cached_tokens", &u.InputTokensDetails.CachedTokens))
		case "output_tokens_details":
			u.OutputTokensDetails = &struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			}{}
			return p.Object(intMember(p, "reasoning_tokens", &u.OutputTokensDetails.ReasoningTokens))
		}
		return p.Skip()
	})
}

// intMember reads the integer member name of an object into dst and skips
// the others.
func intMember(p *llm.Scanner, name string, dst *int) func(key string) bool {
	return func(key string) bool {
		if key != name {
			return p.Skip()
		}
		n, ok := p.Int()
		*dst = n
		return ok
	}
}
