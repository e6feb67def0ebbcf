package llmtest

import (
	"net/http"
	"strconv"
	"strings"
)

// The Gemini API stream (models/{id}:streamGenerateContent?alt=sse), as in
// the API reference (GenerateContentResponse) and recorded responses: each
// event is `data: {GenerateContentResponse}` with no event name, separated
// by CRLF CRLF. A chunk carries candidates[0].content.parts (text parts,
// thought parts with "thought":true, functionCall parts, each possibly with
// a thoughtSignature), the cumulative usageMetadata, modelVersion and
// responseId; the last chunk has the finishReason. Function calls arrive
// whole, never split. An error inside the stream is a chunk
// {"error":{code,message,status}}.

func init() { Register("google-generative-ai", geminiEncoder{}) }

type geminiEncoder struct{}

func (geminiEncoder) Match(r *http.Request) bool {
	return strings.Contains(r.URL.Path, ":streamGenerateContent")
}

// RequestModel reads the model id from the path (.../models/ID:stream...).
func (geminiEncoder) RequestModel(req *Request) string {
	p := req.Path
	if i := strings.LastIndex(p, "/models/"); i >= 0 {
		p = p[i+len("/models/"):]
	}
	if i := strings.Index(p, ":"); i >= 0 {
		p = p[:i]
	}
	return p
}

func (geminiEncoder) LastIsToolResult(req *Request) bool {
	contents, _ := req.Body["contents"].([]any)
	for i := len(contents) - 1; i >= 0 && i >= len(contents)-2; i-- {
		c, _ := contents[i].(map[string]any)
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			if m, _ := p.(map[string]any); m["functionResponse"] != nil {
				return true
			}
		}
	}
	return false
}

func geminiFinish(resp *Response) string {
	if resp.RawStopReason != "" {
		return resp.RawStopReason
	}
	if resp.Stop() == "length" {
		return "MAX_TOKENS"
	}
	return "STOP" // also for function calls
}

// geminiFrame renders one event with the CRLF framing Google uses.
func geminiFrame(data string) Frame { return Frame{Raw: "data: " + data + "\r\n\r\n"} }

func (e geminiEncoder) Encode(resp *Response, req *Request) (content, final []Frame) {
	model := resp.Model
	if model == "" {
		model = e.RequestModel(req)
	}
	id := resp.ID
	if id == "" {
		id = "IZI2acSKMoWl0-kPmYj2yQc"
	}
	u := resp.Usage
	if u == nil {
		u = &Usage{}
	}
	prompt := u.Input + u.CacheRead
	usage := `"usageMetadata":{"promptTokenCount":` + strconv.Itoa(prompt) +
		`,"candidatesTokenCount":` + strconv.Itoa(u.Output-u.Reasoning) +
		`,"totalTokenCount":` + strconv.Itoa(prompt+u.Output)
	if u.CacheRead > 0 {
		usage += `,"cachedContentTokenCount":` + strconv.Itoa(u.CacheRead)
	}
	usage += `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":` + strconv.Itoa(prompt) + `}]`
	if u.Reasoning > 0 {
		usage += `,"thoughtsTokenCount":` + strconv.Itoa(u.Reasoning)
	}
	usage += `}`
	tail := `,` + usage + `,"modelVersion":` + jsonString(model) + `,"responseId":` + jsonString(id) + `}`
	chunk := func(parts, finish string) Frame {
		return geminiFrame(`{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"}` + finish + `,"index":0}]` + tail)
	}
	for _, b := range resp.Blocks() {
		sig := ""
		if b.Signature != "" {
			sig = `,"thoughtSignature":` + jsonString(b.Signature)
		}
		switch b.Type {
		case "thinking", "redactedThinking":
			pieces := Chunks(b.Text, resp.ChunkSize)
			for i, piece := range pieces {
				s := ""
				if i == len(pieces)-1 {
					s = sig
				}
				content = append(content, chunk(`{"text":`+jsonString(piece)+`,"thought":true`+s+`}`, ""))
			}
		case "text":
			pieces := Chunks(b.Text, resp.ChunkSize)
			for i, piece := range pieces {
				s := ""
				if i == len(pieces)-1 {
					s = sig
				}
				content = append(content, chunk(`{"text":`+jsonString(piece)+s+`}`, ""))
			}
		case "toolCall":
			content = append(content, chunk(`{"functionCall":{"name":`+jsonString(b.Name)+`,"args":`+string(b.Args)+`}`+sig+`}`, ""))
		}
	}
	final = append(final, chunk(`{"text":""}`, `,"finishReason":`+jsonString(geminiFinish(resp))))
	return content, final
}

func (geminiEncoder) ErrorFrames(typ, message string) []Frame {
	code := 500
	switch typ {
	case "", "INTERNAL":
		typ = "INTERNAL"
	case "UNAVAILABLE":
		code = 503
	case "RESOURCE_EXHAUSTED":
		code = 429
	}
	return []Frame{geminiFrame(`{"error":{"code":` + strconv.Itoa(code) + `,"message":` + jsonString(message) + `,"status":` + jsonString(typ) + `}}`)}
}
