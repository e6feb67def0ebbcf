package llmtest

import (
	"net/http"
	"strconv"
	"strings"
)

// The OpenAI Responses stream, as in the API reference ("Streaming
// events") and the official SDKs' fixtures: every event is
// `event: <type>` plus `data: {"type":<type>,"sequence_number":n,...}`.
// response.created and response.in_progress open it; each output item is
// response.output_item.added ... response.output_item.done with, in
// between, for a reasoning item reasoning_summary_part.added /
// reasoning_summary_text.delta / .done / reasoning_summary_part.done, for a
// message content_part.added / output_text.delta / output_text.done /
// content_part.done, for a function call function_call_arguments.delta /
// .done. response.completed (or response.incomplete for a length stop)
// carries the usage. An error inside the stream is `event: error` with
// {"type":"error","code","message","param"}.

func init() { Register("openai-responses", responsesEncoder{}) }

type responsesEncoder struct{}

// defaultResponseID is the response id of a scripted answer without one.
const defaultResponseID = "resp_fake01"

func (responsesEncoder) Match(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/responses")
}

func (responsesEncoder) RequestModel(req *Request) string {
	s, _ := req.Body["model"].(string)
	return s
}

func (responsesEncoder) LastIsToolResult(req *Request) bool {
	in, _ := req.Body["input"].([]any)
	if len(in) == 0 {
		return false
	}
	last, _ := in[len(in)-1].(map[string]any)
	if last["type"] == "function_call_output" {
		return true
	}
	// Tool images follow their outputs in a user message.
	if len(in) > 1 && last["role"] == "user" {
		prev, _ := in[len(in)-2].(map[string]any)
		return prev["type"] == "function_call_output"
	}
	return false
}

type responsesStream struct {
	frames []Frame
	seq    int
}

func (s *responsesStream) add(typ, fields string) {
	data := `{"type":` + jsonString(typ) + `,"sequence_number":` + strconv.Itoa(s.seq)
	if fields != "" {
		data += "," + fields
	}
	s.seq++
	s.frames = append(s.frames, Frame{Event: typ, Data: data + "}"})
}

func (e responsesEncoder) Encode(resp *Response, req *Request) (content, final []Frame) {
	model := resp.Model
	if model == "" {
		model = e.RequestModel(req)
	}
	id := resp.ID
	if id == "" {
		id = defaultResponseID
	}
	response := func(status, output, usage, extra string) string {
		return `"response":{"id":` + jsonString(id) + `,"object":"response","created_at":1741290958,"status":` + jsonString(status) +
			`,"error":null,"incomplete_details":` + extra + `,"model":` + jsonString(model) + `,"output":[` + output +
			`],"parallel_tool_calls":true,"store":false,"usage":` + usage + `}`
	}
	s := &responsesStream{}
	s.add("response.created", response("in_progress", "", "null", "null"))
	s.add("response.in_progress", response("in_progress", "", "null", "null"))

	var items []string
	for i, b := range resp.Blocks() {
		oi := `"output_index":` + strconv.Itoa(i)
		switch b.Type {
		case "thinking", "redactedThinking":
			itemID := "rs_fake" + strconv.Itoa(i)
			ref := `"item_id":` + jsonString(itemID) + "," + oi + `,"summary_index":0`
			s.add("response.output_item.added", oi+`,"item":{"id":`+jsonString(itemID)+`,"type":"reasoning","summary":[]}`)
			s.add("response.reasoning_summary_part.added", ref+`,"part":{"type":"summary_text","text":""}`)
			for _, piece := range Chunks(b.Text, resp.ChunkSize) {
				s.add("response.reasoning_summary_text.delta", ref+`,"delta":`+jsonString(piece))
			}
			s.add("response.reasoning_summary_text.done", ref+`,"text":`+jsonString(b.Text))
			s.add("response.reasoning_summary_part.done", ref+`,"part":{"type":"summary_text","text":`+jsonString(b.Text)+`}`)
			item := `{"id":` + jsonString(itemID) + `,"type":"reasoning","encrypted_content":` + jsonString(b.Signature) +
				`,"summary":[{"type":"summary_text","text":` + jsonString(b.Text) + `}]}`
			s.add("response.output_item.done", oi+`,"item":`+item)
			items = append(items, item)
		case "text":
			itemID := "msg_fake" + strconv.Itoa(i)
			ref := `"item_id":` + jsonString(itemID) + "," + oi + `,"content_index":0`
			s.add("response.output_item.added", oi+`,"item":{"id":`+jsonString(itemID)+`,"type":"message","status":"in_progress","content":[],"role":"assistant"}`)
			s.add("response.content_part.added", ref+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`)
			for _, piece := range Chunks(b.Text, resp.ChunkSize) {
				s.add("response.output_text.delta", ref+`,"delta":`+jsonString(piece)+`,"logprobs":[]`)
			}
			s.add("response.output_text.done", ref+`,"text":`+jsonString(b.Text)+`,"logprobs":[]`)
			part := `{"type":"output_text","annotations":[],"logprobs":[],"text":` + jsonString(b.Text) + `}`
			s.add("response.content_part.done", ref+`,"part":`+part)
			item := `{"id":` + jsonString(itemID) + `,"type":"message","status":"completed","content":[` + part + `],"role":"assistant"}`
			s.add("response.output_item.done", oi+`,"item":`+item)
			items = append(items, item)
		case "toolCall":
			itemID := "fc_fake" + strconv.Itoa(i)
			ref := `"item_id":` + jsonString(itemID) + "," + oi
			head := `{"id":` + jsonString(itemID) + `,"type":"function_call","status":`
			tail := `,"call_id":` + jsonString(b.ID) + `,"name":` + jsonString(b.Name) + `}`
			s.add("response.output_item.added", oi+`,"item":`+head+`"in_progress","arguments":""`+tail)
			for _, piece := range Chunks(string(b.Args), resp.ChunkSize) {
				s.add("response.function_call_arguments.delta", ref+`,"delta":`+jsonString(piece))
			}
			s.add("response.function_call_arguments.done", ref+`,"arguments":`+jsonString(string(b.Args)))
			item := head + `"completed","arguments":` + jsonString(string(b.Args)) + tail
			s.add("response.output_item.done", oi+`,"item":`+item)
			items = append(items, item)
		}
	}
	content = s.frames
	s.frames = nil

	u := resp.Usage
	if u == nil {
		u = &Usage{}
	}
	input := u.Input + u.CacheRead + u.CacheWrite
	usage := `{"input_tokens":` + strconv.Itoa(input) + `,"input_tokens_details":{"cached_tokens":` + strconv.Itoa(u.CacheRead) +
		`},"output_tokens":` + strconv.Itoa(u.Output) + `,"output_tokens_details":{"reasoning_tokens":` + strconv.Itoa(u.Reasoning) +
		`},"total_tokens":` + strconv.Itoa(input+u.Output) + `}`
	output := strings.Join(items, ",")
	switch {
	case resp.RawStopReason != "":
		// A raw status: "failed", "cancelled", ... sent as response.<status>.
		s.add("response."+resp.RawStopReason, response(resp.RawStopReason, output, usage, "null"))
	case resp.Stop() == "length":
		s.add("response.incomplete", response("incomplete", output, usage, `{"reason":"max_output_tokens"}`))
	default:
		s.add("response.completed", response("completed", output, usage, "null"))
	}
	return content, s.frames
}

func (responsesEncoder) ErrorFrames(typ, message string) []Frame {
	if typ == "" {
		typ = "server_error"
	}
	return []Frame{{Event: "error", Data: `{"type":"error","sequence_number":99,"code":` + jsonString(typ) +
		`,"message":` + jsonString(message) + `,"param":null}`}}
}
