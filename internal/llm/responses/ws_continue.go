package responses

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/relay-agent/relay/internal/llm"
)

// Continuation on a cached socket, as the original does: the server keeps
// the last response of a socket (even with store:false), so when the next
// request of the session repeats the previous one and only appends to its
// input (the previous input, then the answer's own output items, then the
// new messages), relay sends just the appended items with
// previous_response_id. Anything else (another model, tools or settings,
// an edited or compacted history) sends the full request and forgets the
// socket's state. A server that no longer has the response answers
// previous_response_not_found before any output: the full request goes out
// again on the same socket.

// continuation is what a cached socket remembers of its last answer.
type continuation struct {
	rest       []byte   // the request body without input and previous_response_id
	baseline   [][]byte // that request's input items, then the answer's output items
	responseID string
}

// errContinuationMiss: the server lost the response a delta request
// continued (nothing was emitted).
var errContinuationMiss = errors.New("websocket: previous_response_not_found")

// splitPayload parses a request body into its input items (compacted) and
// the rest of the body (input and previous_response_id removed).
func splitPayload(payload []byte) (fields map[string]json.RawMessage, rest []byte, input [][]byte, ok bool) {
	if json.Unmarshal(payload, &fields) != nil {
		return nil, nil, nil, false
	}
	var items []json.RawMessage
	if raw, has := fields["input"]; has && json.Unmarshal(raw, &items) != nil {
		return nil, nil, nil, false
	}
	input = make([][]byte, len(items))
	for i, it := range items {
		var c bytes.Buffer
		if json.Compact(&c, it) != nil {
			return nil, nil, nil, false
		}
		input[i] = c.Bytes()
	}
	others := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		if k != "input" && k != "previous_response_id" {
			others[k] = v
		}
	}
	rest, err := llm.Marshal(others)
	return fields, rest, input, err == nil
}

// deltaPayload returns the body that continues c: payload's new input
// items with previous_response_id, or ok false when payload does not
// continue c's request and answer.
func (c *continuation) deltaPayload(payload []byte) ([]byte, bool) {
	if c == nil || c.responseID == "" {
		return nil, false
	}
	fields, rest, input, ok := splitPayload(payload)
	if !ok || !bytes.Equal(rest, c.rest) || len(input) < len(c.baseline) {
		return nil, false
	}
	for i, item := range c.baseline {
		if !bytes.Equal(input[i], item) {
			return nil, false
		}
	}
	delta := make([]json.RawMessage, 0, len(input)-len(c.baseline))
	for _, item := range input[len(c.baseline):] {
		delta = append(delta, item)
	}
	var err error
	if fields["input"], err = llm.Marshal(delta); err != nil {
		return nil, false
	}
	if fields["previous_response_id"], err = llm.Marshal(c.responseID); err != nil {
		return nil, false
	}
	out, err := llm.Marshal(fields)
	return out, err == nil
}

// newContinuation records a completed exchange: payload is the full
// request body sent (or continued), msg the answer. nil when the answer
// cannot be continued (no response id, a body relay cannot read).
func newContinuation(req *llm.Request, payload []byte, msg *llm.AssistantMessage) *continuation {
	if msg == nil || msg.ResponseID == "" || msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		return nil
	}
	_, rest, input, ok := splitPayload(payload)
	if !ok {
		return nil
	}
	// The answer's items as the next request will replay them (its index
	// is the message's place in that request).
	for _, item := range assistantItems(msg, req.Model, len(req.Messages)) {
		raw, err := llm.Marshal(item)
		if err != nil {
			return nil
		}
		var c bytes.Buffer
		if json.Compact(&c, raw) != nil {
			return nil
		}
		input = append(input, c.Bytes())
	}
	return &continuation{rest: rest, baseline: input, responseID: msg.ResponseID}
}
