package cloudcode

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// modelFor returns the test model of provider: the Gemini CLI's Gemini
// 2.5 Flash, with the sign-in's project header.
func modelFor(provider, id string) func(string) *llm.Model {
	return func(baseURL string) *llm.Model {
		return &llm.Model{ID: id, Name: id, API: llm.APIGoogleGenerativeAI, Provider: provider,
			BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65535,
			Cost: llm.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.075}, Headers: map[string]string{"X-Goog-User-Project": "proj-7"}}
	}
}

var (
	cli         = llmtest.Target{Client: New(Config{}), Model: modelFor(GeminiCLI, "gemini-2.5-flash")}
	antigravity = llmtest.Target{Client: New(Config{}), Model: modelFor(Antigravity, "gemini-3-flash")}
)

// generatedID matches the ids the client makes up for function calls.
var generatedID = regexp.MustCompile(`"(\w+)_\d+_\d+"`)

func generatedIDs(b []byte) []byte { return generatedID.ReplaceAll(b, []byte(`"${1}_ID"`)) }

func TestEventSequences(t *testing.T) {
	thinking := llmtest.Response{Content: []llmtest.Block{
		{Type: "thinking", Text: "**Greeting**\n\nThe user greets me.", Signature: "CikBcsjafFK168Ib"},
		{Type: "text", Text: "Hi there."}}}
	llmtest.RunEventGoldens(t, cli, *update, llmtest.EventCases("resp-", thinking), generatedIDs)
}

func TestUsageAndCost(t *testing.T) { llmtest.RunUsageAndCost(t, cli) }

func TestMissingKey(t *testing.T) { llmtest.RunMissingKey(t, cli) }

func TestAbortMidStream(t *testing.T) { llmtest.RunAbortMidStream(t, antigravity) }

func errBody(code int, status, msg, details string) string {
	b := `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"`
	if details != "" {
		b += `,"details":` + details
	}
	return b + `}}`
}

// retryInfo is the details of a Cloud Code Assist 429: the quota that ran
// out and when to come back.
func retryInfo(delay string) string {
	return `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"cloudcode-pa.googleapis.com",` +
		`"metadata":{"uiMessage":"true","model":"gemini-2.5-pro","quotaResetDelay":"` + delay + `"}},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]`
}

func faults() llmtest.Faults {
	noSleep := func(context.Context, time.Duration) error { return nil }
	return llmtest.Faults{
		RateLimit: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "You have exhausted your capacity on this model. Your quota will reset after 2s.", retryInfo("2.02s")),
			Has: "exhausted your capacity"},
		Server: llmtest.HTTPError{Body: errBody(500, "INTERNAL", "Internal error encountered.", "")},
		Auth: llmtest.HTTPError{Body: errBody(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.", ""),
			Has: "invalid authentication credentials"},
		Quota: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details", ""),
			Has: "quota"},
		Overflow: llmtest.HTTPError{Body: errBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", ""),
			Has: "input token count"},
		InStream:    llmtest.Fault{ErrorType: "UNAVAILABLE", ErrorMessage: "The model is overloaded. Please try again later."},
		InStreamHas: "UNAVAILABLE: The model is overloaded",
		CutAfter:    900,
		Garbage:     llmtest.Fault{Garbage: `{"response": {"candidates": [{"content": {"parts": [{"text": "x"`},
		EarlyEndHas: "connection closed",
		Extra: []llmtest.FaultCase{
			{Name: "429 RetryInfo honoured, then success", Responses: []llmtest.Response{
				{Fault: &llmtest.Fault{Status: 429, Body: errBody(429, "RESOURCE_EXHAUSTED", "You have exhausted your capacity on this model. Your quota will reset after 1s.", retryInfo("0.5s"))}},
				{Text: "recovered"}},
				Req: llm.Request{MaxRetries: 2, Sleep: noSleep}, KeepText: "recovered", Requests: 2},
			{Name: "429 resetting in hours fails at once", Responses: []llmtest.Response{
				{Fault: &llmtest.Fault{Status: 429, Body: errBody(429, "RESOURCE_EXHAUSTED", "You have exhausted your capacity on this model. Your quota will reset after 18h31m10s.", retryInfo("66670.5s"))}},
				{Text: "never"}},
				Req: llm.Request{MaxRetries: 3, MaxRetryDelay: time.Minute, Sleep: noSleep}, Kind: llm.ErrRateLimit, Retryable: true,
				MsgHas: "more than the 1m0s limit", Requests: 1, RetryAfter: 66670500 * time.Millisecond},
			{Name: "error envelope without content", Responses: []llmtest.Response{{Fault: &llmtest.Fault{ErrorType: "INTERNAL", ErrorMessage: "boom"}}},
				Kind: llm.ErrServer, Retryable: true, MsgHas: "INTERNAL: boom", Requests: 1},
		},
	}
}

func TestFaults(t *testing.T) {
	t.Run("gemini-cli", func(t *testing.T) { llmtest.RunFaults(t, cli, faults()) })
	t.Run("antigravity", func(t *testing.T) { llmtest.RunFaults(t, antigravity, faults()) })
}

// TestRequestEnvelope: the body each product sends (golden, requestId
// masked) and its headers; the project travels in the body, never as the
// X-Goog-User-Project header.
func TestRequestEnvelope(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string","$comment":"x"}},"required":["path"],"$defs":{"a":{}}}`)
	for _, tc := range []struct {
		name string
		tg   llmtest.Target
		id   string
	}{
		{"gemini_cli_flash25", cli, "gemini-2.5-flash"},
		{"gemini_cli_pro3", cli, "gemini-3-pro-preview"},
		{"gemini_cli_claude", cli, "claude-sonnet-4-5"},
		{"antigravity_flash3", antigravity, "gemini-3-flash"},
		{"antigravity_claude_thinking", antigravity, "claude-opus-4-5-thinking"},
		{"antigravity_pro31_high", antigravity, "gemini-3.1-pro-high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
			defer srv.Close()
			m := tc.tg.Model(srv.URL)
			m.ID, m.Name = tc.id, tc.id
			msg, _ := tc.tg.Run(t, srv, &llm.Request{Model: m, SystemPrompt: "You are relay.", SessionID: "sess-1",
				ThinkingLevel: llm.ThinkingMedium, Tools: []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: schema}},
				Headers: map[string]string{"x-goog-user-project": "proj-9", "X-Extra": "1"}})
			if msg.StopReason != llm.StopStop || msg.Text() != "ok" {
				t.Fatalf("stop %s %q", msg.StopReason, msg.ErrorMessage)
			}
			r := srv.Requests()[0]
			if r.Path != "/v1internal:streamGenerateContent" || r.RawQuery != "alt=sse" {
				t.Fatalf("url %s?%s", r.Path, r.RawQuery)
			}
			h := r.Header
			if h.Get("Authorization") != "Bearer sk-test" || h.Get("X-Goog-User-Project") != "" || h.Get("X-Extra") != "1" ||
				h.Get("Accept") != "text/event-stream" || h.Get("Content-Type") != "application/json" {
				t.Errorf("headers %v", h)
			}
			if tc.tg.Model("").Provider == Antigravity {
				if h.Get("User-Agent") != "antigravity/1.21.9" || h.Get("X-Goog-Api-Client") != "" {
					t.Errorf("antigravity headers %v", h)
				}
				if id, _ := r.Body["requestId"].(string); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
					t.Errorf("requestId %q", id)
				}
			} else {
				if h.Get("User-Agent") != "google-cloud-sdk vscode_cloudshelleditor/0.1" || h.Get("X-Goog-Api-Client") != "gl-node/22.17.0" ||
					h.Get("Client-Metadata") != `{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}` {
					t.Errorf("gemini cli headers %v", h)
				}
				if id, _ := r.Body["requestId"].(string); !regexp.MustCompile(`^relay-\d{13}-[0-9a-z]{9}$`).MatchString(id) {
					t.Errorf("requestId %q", id)
				}
			}
			body := r.Body
			body["requestId"] = "<masked>"
			llmtest.GoldenJSON(t, *update, "request_"+tc.name+".json", body)
		})
	}
}

// TestAntigravityEndpointFallback: a 403 or 404 from one Antigravity
// origin moves to the next; other failures, and the last origin's 403, are
// the answer.
func TestAntigravityEndpointFallback(t *testing.T) {
	var denied, broken atomic.Int32
	daily := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		denied.Add(1)
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(errBody(403, "PERMISSION_DENIED", "The caller does not have permission", "")))
	}))
	defer daily.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		broken.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(errBody(500, "INTERNAL", "Internal error encountered.", "")))
	}))
	defer down.Close()
	prod := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "from prod"}}, Repeat: true})
	defer prod.Close()
	saved := AntigravityEndpoints
	defer func() { AntigravityEndpoints = saved }()
	run := func(endpoints []string, base string) *llm.AssistantMessage {
		AntigravityEndpoints = endpoints
		msg, _ := antigravity.Run(t, prod, &llm.Request{Model: antigravity.Model(base)})
		return msg
	}

	// No origin from the sign-in, or the daily one: daily refuses, prod answers.
	for _, base := range []string{"", daily.URL} {
		if msg := run([]string{daily.URL, prod.URL}, base); msg.Text() != "from prod" {
			t.Fatalf("base %q: %s %q", base, msg.StopReason, msg.ErrorMessage)
		}
	}
	if denied.Load() != 2 || len(prod.Requests()) != 2 {
		t.Fatalf("daily asked %d times, prod %d", denied.Load(), len(prod.Requests()))
	}
	// The sign-in's origin comes first: daily is not asked.
	if msg := run([]string{daily.URL, prod.URL}, prod.URL); msg.Text() != "from prod" || denied.Load() != 2 {
		t.Fatalf("prod first: %s %q, daily asked %d times", msg.StopReason, msg.ErrorMessage, denied.Load())
	}
	// A 500 does not move on.
	msg := run([]string{down.URL, prod.URL}, "")
	if msg.Err == nil || msg.Err.Kind != llm.ErrServer || !strings.Contains(msg.ErrorMessage, "Cloud Code Assist API error: 500") || len(prod.Requests()) != 3 {
		t.Fatalf("500: %s %q, prod asked %d times", msg.StopReason, msg.ErrorMessage, len(prod.Requests()))
	}
	// The last origin's 403 is the answer.
	msg = run([]string{daily.URL}, "")
	if msg.Err == nil || msg.Err.Kind != llm.ErrAuth || !strings.Contains(msg.ErrorMessage, "403") {
		t.Fatalf("403: %s %q", msg.StopReason, msg.ErrorMessage)
	}
	// A foreign origin (a proxy) is the only one.
	msg = run([]string{prod.URL}, daily.URL+"/")
	if msg.Err == nil || msg.Err.Kind != llm.ErrAuth || denied.Load() != 4 {
		t.Fatalf("foreign: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// TestClaudeThroughAntigravity: Claude's tool-call turns end with OTHER,
// which is a tool-use stop, not an error; signed thinking comes back on
// the next request.
func TestClaudeThroughAntigravity(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{RawStopReason: "OTHER", Content: []llmtest.Block{
			{Type: "thinking", Text: "Look at the file.", Signature: "RXJpY0FudGhyb3BpY1NpZw=="},
			{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"a.go"}`)}}},
		{Text: "done"},
	}})
	defer srv.Close()
	m := antigravity.Model(srv.URL)
	m.ID = "claude-opus-4-5-thinking"
	first, _ := antigravity.Run(t, srv, &llm.Request{Model: m, ThinkingLevel: llm.ThinkingHigh})
	if first.StopReason != llm.StopToolUse || first.RawStopReason != "OTHER" {
		t.Fatalf("stop %s (%s) %q", first.StopReason, first.RawStopReason, first.ErrorMessage)
	}
	th, ok := first.Content[0].(*llm.ThinkingContent)
	if !ok || th.ThinkingSignature != "RXJpY0FudGhyb3BpY1NpZw==" {
		t.Fatalf("thinking %+v", first.Content[0])
	}
	tc := first.ToolCalls()[0]
	msgs := []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}, first,
		&llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package a"}}}}
	second, _ := antigravity.Run(t, srv, &llm.Request{Model: m, Messages: msgs, ThinkingLevel: llm.ThinkingHigh})
	if second.Text() != "done" {
		t.Fatalf("second %s %q", second.StopReason, second.ErrorMessage)
	}
	in := srv.Requests()[1].Body["request"].(map[string]any)
	got, _ := json.Marshal(in["contents"].([]any)[1:])
	want := `[{"parts":[{"text":"Look at the file.","thought":true,"thoughtSignature":"RXJpY0FudGhyb3BpY1NpZw=="},` +
		`{"functionCall":{"args":{"path":"a.go"},"id":"` + tc.ID + `","name":"read"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"id":"` + tc.ID + `","name":"read","response":{"output":"package a"}}}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("replayed contents\n got %s\nwant %s", got, want)
	}
	budget := in["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)["thinkingBudget"]
	if budget != 16384.0 {
		t.Errorf("thinking budget %v", budget)
	}
	// Without tool calls OTHER stays an error.
	srv2 := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "hm", RawStopReason: "OTHER"}}})
	defer srv2.Close()
	m.BaseURL = srv2.URL
	msg, _ := antigravity.Run(t, srv2, &llm.Request{Model: m})
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "Provider finishReason: OTHER" {
		t.Fatalf("OTHER without tools: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// TestStreamShapes: the envelope's own events and failures, served raw.
func TestStreamShapes(t *testing.T) {
	chunk := func(parts, finish string) string {
		return `data: {"response":{"candidates":[{"content":{"role":"model","parts":[` + parts + `]}` + finish + `}],` +
			`"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7},"modelVersion":"gemini-2.5-pro"},"traceId":"t1"}` + "\r\n\r\n"
	}
	stop := `,"finishReason":"STOP"`
	tests := []struct {
		name, body string
		stop       llm.StopReason
		text       string
		kind       llm.ErrorKind
		msgHas     string
	}{
		{"text then DONE", chunk(`{"text":"Hel"}`, "") + chunk(`{"text":"lo"}`, stop) + "data: [DONE]\r\n\r\n", llm.StopStop, "Hello", "", ""},
		{"LF framing", strings.ReplaceAll(chunk(`{"text":"Hi"}`, stop), "\r\n", "\n"), llm.StopStop, "Hi", "", ""},
		{"DONE before a finish", chunk(`{"text":"Hel"}`, "") + "data: [DONE]\n\n", llm.StopError, "Hel", llm.ErrNetwork, "connection closed"},
		{"empty answer", chunk(`{"text":""}`, stop), llm.StopError, "", llm.ErrServer, "returned an empty response"},
		{"error envelope mid-stream", chunk(`{"text":"par"}`, "") + `data: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}` + "\n\n",
			llm.StopError, "par", llm.ErrRateLimit, "RESOURCE_EXHAUSTED: Resource has been exhausted"},
		{"event without response", chunk(`{"text":"a"}`, "") + `data: {"traceId":"t2"}` + "\n\n", llm.StopError, "a", llm.ErrMalformed, "no response"},
		{"garbage", chunk(`{"text":"a"}`, "") + "data: <html>oops</html>\n\n", llm.StopError, "a", llm.ErrMalformed, "malformed"},
		{"nothing at all", "", llm.StopError, "", llm.ErrNetwork, "connection closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			req := &llm.Request{Model: cli.Model(srv.URL), APIKey: "k", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}
			msg := cli.Client.Stream(context.Background(), req, nil)
			if msg.StopReason != tt.stop || msg.Text() != tt.text {
				t.Fatalf("stop %s text %q err %q", msg.StopReason, msg.Text(), msg.ErrorMessage)
			}
			if tt.kind != "" && (msg.Err == nil || msg.Err.Kind != tt.kind || !strings.Contains(msg.ErrorMessage, tt.msgHas)) {
				t.Fatalf("err %+v, want %s with %q", msg.Err, tt.kind, tt.msgHas)
			}
			if tt.stop == llm.StopStop && (msg.Usage.Input != 5 || msg.Usage.Output != 2) {
				t.Fatalf("usage %+v", msg.Usage)
			}
		})
	}
}

// TestNoProject: a sign-in without a project cannot be used; the message
// says how to fix it and nothing is sent.
func TestNoProject(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "never"}}})
	defer srv.Close()
	m := cli.Model(srv.URL)
	m.Headers = nil
	msg, _ := cli.Run(t, srv, &llm.Request{Model: m})
	if msg.Err == nil || msg.Err.Kind != llm.ErrAuth || !strings.Contains(msg.ErrorMessage, "run /login google-gemini-cli") || len(srv.Requests()) != 0 {
		t.Fatalf("%s %q, %d requests", msg.StopReason, msg.ErrorMessage, len(srv.Requests()))
	}
}

func TestHandles(t *testing.T) {
	for _, tt := range []struct {
		m    llm.Model
		want bool
	}{
		{llm.Model{Provider: GeminiCLI, API: llm.APIGoogleGenerativeAI}, true},
		{llm.Model{Provider: Antigravity, API: llm.APIGoogleGenerativeAI}, true},
		{llm.Model{Provider: "my-proxy", API: API}, true},
		{llm.Model{Provider: "google", API: llm.APIGoogleGenerativeAI}, false},
	} {
		if got := Handles(&tt.m); got != tt.want {
			t.Errorf("%s/%s: %v", tt.m.Provider, tt.m.API, got)
		}
	}
}
