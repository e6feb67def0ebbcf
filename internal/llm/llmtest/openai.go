package llmtest

import (
	"net/http"
	"strconv"
	"strings"
)

// The OpenAI Chat Completions stream, as in the API reference ("The chat
// completion chunk object") and the official SDKs' fixtures: every event
// is `data: {chat.completion.chunk}` with the same id, object, created and
// model; the first delta carries the role; tool calls stream by index (the
// first piece has id, type and name, the rest only argument text); the
// finish_reason arrives in a chunk with an empty delta; with
// stream_options.include_usage a last chunk has "choices":[] and the usage;
// then `data: [DONE]`. Reasoning text goes in delta.reasoning_content, as
// DeepSeek, llama.cpp and vLLM send it. An error inside the stream is a
// chunk {"error":{message,type,param,code}}.

func init() { Register("openai-completions", openaiEncoder{}) }

type openaiEncoder struct{}

func (openaiEncoder) Match(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/chat/completions")
}

func (openaiEncoder) RequestModel(req *Request) string {
	s, _ := req.Body["model"].(string)
	return s
}

func (openaiEncoder) LastIsToolResult(req *Request) bool {
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		return false
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	return last["role"] == "tool"
}

func openaiFinish(resp *Response) string {
	if resp.RawStopReason != "" {
		return resp.RawStopReason
	}
	switch resp.Stop() {
	case "length":
		return "length"
	case "toolUse":
		return "tool_calls"
	}
	return "stop"
}

func (e openaiEncoder) Encode(resp *Response, req *Request) (content, final []Frame) {
	model := resp.Model
	if model == "" {
		model = e.RequestModel(req)
	}
	id := resp.ID
	if id == "" {
		id = "chatcmpl-fake01"
	}
	head := `{"id":` + jsonString(id) + `,"object":"chat.completion.chunk","created":1741290958,"model":` + jsonString(model) +
		`,"service_tier":"default","system_fingerprint":"fp_fake01","choices":[`
	chunk := func(delta, finish string) Frame {
		return Frame{Data: head + `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`}
	}
	content = append(content, chunk(`{"role":"assistant","content":"","refusal":null}`, "null"))
	toolIndex := 0
	for _, b := range resp.Blocks() {
		switch b.Type {
		case "thinking", "redactedThinking":
			for _, piece := range Chunks(b.Text, resp.ChunkSize) {
				content = append(content, chunk(`{"content":null,"reasoning_content":`+jsonString(piece)+`}`, "null"))
			}
		case "text":
			for _, piece := range Chunks(b.Text, resp.ChunkSize) {
				content = append(content, chunk(`{"content":`+jsonString(piece)+`}`, "null"))
			}
		case "toolCall":
			idx := strconv.Itoa(toolIndex)
			toolIndex++
			content = append(content, chunk(`{"tool_calls":[{"index":`+idx+`,"id":`+jsonString(b.ID)+
				`,"type":"function","function":{"name":`+jsonString(b.Name)+`,"arguments":""}}]}`, "null"))
			for _, piece := range Chunks(string(b.Args), resp.ChunkSize) {
				content = append(content, chunk(`{"tool_calls":[{"index":`+idx+`,"function":{"arguments":`+jsonString(piece)+`}}]}`, "null"))
			}
		}
	}
	final = append(final, chunk(`{}`, jsonString(openaiFinish(resp))))
	if includeUsage(req) {
		u := resp.Usage
		if u == nil {
			u = &Usage{}
		}
		prompt := u.Input + u.CacheRead + u.CacheWrite
		final = append(final, Frame{Data: head + `],"usage":{"prompt_tokens":` + strconv.Itoa(prompt) +
			`,"completion_tokens":` + strconv.Itoa(u.Output) + `,"total_tokens":` + strconv.Itoa(prompt+u.Output) +
			`,"prompt_tokens_details":{"cached_tokens":` + strconv.Itoa(u.CacheRead) + `,"audio_tokens":0}` +
			`,"completion_tokens_details":{"reasoning_tokens":` + strconv.Itoa(u.Reasoning) +
			`,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`})
	}
	final = append(final, Frame{Data: "[DONE]"})
	return content, final
}

// includeUsage reports whether the request asked for the usage chunk.
func includeUsage(req *Request) bool {
	so, _ := req.Body["stream_options"].(map[string]any)
	v, _ := so["include_usage"].(bool)
	return v
}

func (openaiEncoder) ErrorFrames(typ, message string) []Frame {
	if typ == "" {
		typ = "server_error"
	}
	return []Frame{{Data: `{"error":{"message":` + jsonString(message) + `,"type":` + jsonString(typ) + `,"param":null,"code":null}}`}}
}

// OpenAIErrorBody is an OpenAI API error body ({"error":{message, type,
// param, code}}), the shape Chat Completions and Responses share.
func OpenAIErrorBody(typ, code, msg string) string {
	return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":"` + code + `"}}`
}

// OpenAIFaults returns the fault-table entries the two OpenAI APIs share:
// their HTTP error bodies and in-stream error. The caller adds the
// stream-specific ones (InStreamHas, Garbage, CutAfter, EarlyEndHas).
func OpenAIFaults() Faults {
	return Faults{
		RateLimit: HTTPError{Body: OpenAIErrorBody("requests", "rate_limit_exceeded", "Rate limit reached for gpt-5"), Has: "Rate limit reached"},
		Server:    HTTPError{Body: OpenAIErrorBody("server_error", "", "The server had an error")},
		Auth:      HTTPError{Body: OpenAIErrorBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided"), Has: "Incorrect API key"},
		Quota:     HTTPError{Body: OpenAIErrorBody("insufficient_quota", "insufficient_quota", "You exceeded your current quota"), Has: "quota"},
		Overflow: HTTPError{Body: OpenAIErrorBody("invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens"),
			Has: "maximum context length"},
		InStream: Fault{ErrorType: "server_error", ErrorMessage: "The server is overloaded"},
	}
}
