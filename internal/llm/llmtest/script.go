// Package llmtest is a scripted fake model provider for tests and
// benchmarks. It serves the four streaming APIs relay speaks (Anthropic
// Messages, OpenAI Chat Completions, OpenAI Responses, Google Gemini
// streamGenerateContent?alt=sse) on an httptest server, in the SSE shapes
// those APIs send, answers from a Script, injects faults, and records every
// request so tests can assert what the client sent.
//
// The script is plain JSON, so the same fake also runs outside Go tests:
// internal/llm/llmtest/cmd/fakellm serves a script file on 127.0.0.1.
//
// Each API has an Encoder registered under its api name (see Register);
// anthropic.go holds the Anthropic one, openai.go, responses.go and
// gemini.go the others.
//
// It also holds what the wire clients' tests share: Target and the Run*
// conformance checks (target.go; the common fault table in faults.go),
// Golden and GoldenJSON for golden files (golden.go), and the streaming
// benchmark harness (bench.go).
package llmtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Script says what the fake answers.
//
// For each request, the first Rule whose When matches wins (rules are
// reusable); otherwise the next unused entry of Responses is served, in
// order. When Responses is used up, the last one is repeated if Repeat is
// set, else the request fails with HTTP 500 and a "script exhausted" body.
type Script struct {
	Rules     []Rule     `json:"rules,omitempty"`
	Responses []Response `json:"responses,omitempty"`
	Repeat    bool       `json:"repeat,omitempty"`
	// ZeroLatency writes each response in one go without flushing per event
	// (for benchmarks). Per-response Delay still applies when set.
	ZeroLatency bool `json:"zeroLatency,omitempty"`
}

// Rule answers Response to requests matching When.
type Rule struct {
	When     Match    `json:"when"`
	Response Response `json:"response"`
	// Times limits how often the rule fires (0 = unlimited).
	Times int `json:"times,omitempty"`
}

// Match selects requests. All set conditions must hold.
type Match struct {
	// ToolResult: the last message of the request is a tool result.
	ToolResult *bool `json:"toolResult,omitempty"`
	// Contains: the raw request body contains this string.
	Contains string `json:"contains,omitempty"`
	// API: the request is for this API ("anthropic-messages", ...).
	API string `json:"api,omitempty"`
	// Model: the requested model id.
	Model string `json:"model,omitempty"`
}

// Block is one content block of a scripted answer.
type Block struct {
	// Type is "text", "thinking", "redactedThinking" or "toolCall".
	Type string `json:"type"`
	Text string `json:"text,omitempty"` // text and thinking
	// Signature: thinking signature / redacted payload / Google
	// thoughtSignature / Responses encrypted reasoning content.
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"` // tool call id (generated when empty)
	Name      string          `json:"name,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"` // tool call arguments (a JSON object)
}

// Usage is the token usage the fake reports.
type Usage struct {
	Input        int `json:"input,omitempty"`
	Output       int `json:"output,omitempty"`
	CacheRead    int `json:"cacheRead,omitempty"`
	CacheWrite   int `json:"cacheWrite,omitempty"`
	CacheWrite1h int `json:"cacheWrite1h,omitempty"`
	Reasoning    int `json:"reasoning,omitempty"`
}

// Response is one scripted answer. Content, when set, is served as is;
// otherwise Thinking, Text and ToolCalls make the blocks, in that order.
type Response struct {
	ID        string  `json:"id,omitempty"`
	Model     string  `json:"model,omitempty"` // response model (default: the requested one)
	Thinking  string  `json:"thinking,omitempty"`
	Text      string  `json:"text,omitempty"`
	ToolCalls []Block `json:"toolCalls,omitempty"`
	Content   []Block `json:"content,omitempty"`
	Usage     *Usage  `json:"usage,omitempty"`
	// StopReason is relay's reason ("stop", "length", "toolUse"; default
	// toolUse when there are tool calls, else stop). RawStopReason, when set,
	// is sent verbatim instead (e.g. "refusal").
	StopReason    string `json:"stopReason,omitempty"`
	RawStopReason string `json:"rawStopReason,omitempty"`
	// ChunkSize splits text, thinking and argument deltas into pieces of
	// at most this many bytes (0 = one delta per block).
	ChunkSize int `json:"chunkSize,omitempty"`
	// Delay is slept before each event (Go duration string in JSON).
	Delay Duration `json:"delay,omitempty"`
	Fault *Fault   `json:"fault,omitempty"`
}

// Fault injects a failure.
type Fault struct {
	// Status answers with this HTTP status and Body instead of a stream.
	Status     int    `json:"status,omitempty"`
	Body       string `json:"body,omitempty"`
	RetryAfter string `json:"retryAfter,omitempty"`
	// ErrorType/ErrorMessage send the API's in-stream error event after the
	// content and end the stream there.
	ErrorType    string `json:"errorType,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// CutAfter closes the connection after this many body bytes.
	CutAfter int `json:"cutAfter,omitempty"`
	// Garbage is sent as a data line after the content (a malformed chunk),
	// under the SSE event name GarbageEvent when set (APIs with named events
	// ignore unnamed ones).
	Garbage      string `json:"garbage,omitempty"`
	GarbageEvent string `json:"garbageEvent,omitempty"`
	// Stall stops sending after the content and holds the connection open
	// for this long (or until the client goes away): an idle stream.
	Stall Duration `json:"stall,omitempty"`

	// The stalling servers of the stream guard's tests. Each stops by
	// itself (after StallBound, or EndlessBytes) so a client without a
	// guard fails its test instead of hanging.
	//
	// HeadersOnly sends the headers and none of the content; what follows
	// is up to Pings, Trickle or Stall.
	HeadersOnly bool `json:"headersOnly,omitempty"`
	// Pings sends the API's keep-alive (Anthropic's ping event, an SSE
	// comment for the others) at this interval after the content, and
	// nothing else; the stream then ends without its final events.
	Pings Duration `json:"pings,omitempty"`
	// Trickle sends the final events one byte at a time, at this interval.
	Trickle Duration `json:"trickle,omitempty"`
	// Endless repeats the content events until EndlessBytes went out, then
	// ends normally: an answer that never stops growing.
	Endless bool `json:"endless,omitempty"`
}

// StallBound is how long the fake keeps up Pings or Trickle at most.
const StallBound = 5 * time.Second

// EndlessBytes is how much an Endless fault sends before it ends.
const EndlessBytes = 4 << 20

// KeepAliver is implemented by encoders whose API has its own keep-alive
// event; others send an SSE comment.
type KeepAliver interface {
	KeepAlive() Frame
}

// Duration is a time.Duration written as a Go duration string in JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err2 := json.Unmarshal(b, &n); err2 != nil {
			return fmt.Errorf("duration: %w", err)
		}
		*d = Duration(time.Duration(n) * time.Millisecond)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Blocks returns the content blocks to serve, with tool-call ids filled.
func (r *Response) Blocks() []Block {
	var out []Block
	if len(r.Content) > 0 {
		out = append(out, r.Content...)
	} else {
		if r.Thinking != "" {
			out = append(out, Block{Type: "thinking", Text: r.Thinking, Signature: "sig-" + fmt.Sprint(len(r.Thinking))})
		}
		if r.Text != "" {
			out = append(out, Block{Type: "text", Text: r.Text})
		}
		out = append(out, r.ToolCalls...)
	}
	n := 0
	for i := range out {
		if out[i].Type == "toolCall" || out[i].Type == "" && out[i].Name != "" {
			out[i].Type = "toolCall"
			n++
			if out[i].ID == "" {
				out[i].ID = fmt.Sprintf("call_%d", n)
			}
			if len(out[i].Args) == 0 {
				out[i].Args = json.RawMessage("{}")
			}
		}
	}
	return out
}

// Stop returns relay's stop reason for the response.
func (r *Response) Stop() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Blocks() {
		if b.Type == "toolCall" {
			return "toolUse"
		}
	}
	return "stop"
}

// Chunks splits s into pieces of at most n bytes without splitting UTF-8
// sequences (n <= 0: one piece).
func Chunks(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		return []string{s}
	}
	out := make([]string, 0, len(s)/n+1)
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && k > 0 && s[k]&0xC0 == 0x80 {
			k--
		}
		if k == 0 {
			k = min(n, len(s))
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// LoadScript reads a script from a JSON file.
func LoadScript(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	var s Script
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse script %s: %w", path, err)
	}
	return &s, nil
}
