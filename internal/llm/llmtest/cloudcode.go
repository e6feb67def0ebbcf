package llmtest

import (
	"net/http"
	"strings"
)

// The Cloud Code Assist stream (POST {origin}/v1internal:streamGenerateContent?alt=sse,
// what the Gemini CLI and Antigravity subscriptions speak): the request is
// {"project","model","request":GenerateContentRequest,"userAgent","requestId",
// "requestType"?}; every event is the Gemini API's chunk wrapped as
// `data: {"response": GenerateContentResponse, "traceId": "..."}` with the
// same CRLF framing, and an error inside the stream is the bare
// {"error":{code,message,status}}.

func init() { Register("cloud-code-assist", cloudCodeEncoder{}) }

type cloudCodeEncoder struct{}

func (cloudCodeEncoder) Match(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/v1internal:streamGenerateContent")
}

// RequestModel reads the model of the envelope.
func (cloudCodeEncoder) RequestModel(req *Request) string {
	m, _ := req.Body["model"].(string)
	return m
}

// inner is the GenerateContentRequest inside the envelope.
func (cloudCodeEncoder) inner(req *Request) *Request {
	in, _ := req.Body["request"].(map[string]any)
	r := *req
	r.Body = in
	return &r
}

func (e cloudCodeEncoder) LastIsToolResult(req *Request) bool {
	return geminiEncoder{}.LastIsToolResult(e.inner(req))
}

// cloudCodeTrace is the traceId the fake puts on every event.
const cloudCodeTrace = "2c1f3d0a9b8e7f65"

func (e cloudCodeEncoder) Encode(resp *Response, req *Request) (content, final []Frame) {
	r := *resp
	if r.Model == "" {
		r.Model = e.RequestModel(req)
	}
	content, final = geminiEncoder{}.Encode(&r, e.inner(req))
	return wrapCloudCode(content), wrapCloudCode(final)
}

// wrapCloudCode puts each Gemini chunk into the response envelope.
func wrapCloudCode(frames []Frame) []Frame {
	out := make([]Frame, len(frames))
	for i, f := range frames {
		data := strings.TrimSuffix(strings.TrimPrefix(f.Raw, "data: "), "\r\n\r\n")
		out[i] = geminiFrame(`{"response":` + data + `,"traceId":"` + cloudCodeTrace + `"}`)
	}
	return out
}

func (cloudCodeEncoder) ErrorFrames(typ, message string) []Frame {
	return geminiEncoder{}.ErrorFrames(typ, message)
}
