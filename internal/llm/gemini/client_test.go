package gemini

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func testModel(baseURL string) *llm.Model {
	return &llm.Model{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", API: llm.APIGoogleGenerativeAI, Provider: "google",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536,
		Cost: llm.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.075}}
}

var target = llmtest.Target{Client: New(), Model: testModel}

// generatedID matches the ids the client makes up for function calls.
var generatedID = regexp.MustCompile(`"(\w+)_\d+_\d+"`)

func TestEventSequences(t *testing.T) {
	thinking := llmtest.Response{Content: []llmtest.Block{
		{Type: "thinking", Text: "**Greeting**\n\nThe user greets me.", Signature: "CikBcsjafFK168Ib"},
		{Type: "text", Text: "Hi there."}}}
	llmtest.RunEventGoldens(t, target, *update, llmtest.EventCases("resp-", thinking), generatedIDs)
}

// TestSignaturesRoundTrip streams thought parts and a signed function
// call, then sends them back: thought parts and signatures must return on
// the same parts.
func TestSignaturesRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Content: []llmtest.Block{
			{Type: "thinking", Text: "plan"},
			{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"x"}`), Signature: "CikBcsjafFK168Ib"}}},
		{Text: "done"},
	}})
	defer srv.Close()
	first, _ := target.Run(t, srv, &llm.Request{ThinkingLevel: llm.ThinkingMedium})
	if first.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", first.StopReason, first.ErrorMessage)
	}
	tc := first.ToolCalls()[0]
	if !strings.HasPrefix(tc.ID, "read_") || tc.ThoughtSignature != "CikBcsjafFK168Ib" {
		t.Errorf("tool call %+v", tc)
	}
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("hi")},
		first,
		&llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "content"}}},
	}
	second, _ := target.Run(t, srv, &llm.Request{Messages: msgs, ThinkingLevel: llm.ThinkingMedium})
	if second.Text() != "done" {
		t.Fatalf("second %q %s", second.Text(), second.ErrorMessage)
	}
	r := srv.Requests()[1]
	got, _ := json.Marshal(r.Body["contents"].([]any)[1:])
	want := `[{"parts":[{"text":"plan","thought":true},{"functionCall":{"args":{"path":"x"},"name":"read"},"thoughtSignature":"CikBcsjafFK168Ib"}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read","response":{"output":"content"}}}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("replayed contents\n got %s\nwant %s", got, want)
	}
	if r.Path != "/models/gemini-2.5-flash:streamGenerateContent" || r.RawQuery != "alt=sse" || r.Header.Get("X-Goog-Api-Key") != "sk-test" {
		t.Errorf("path %s?%s key %q", r.Path, r.RawQuery, r.Header.Get("X-Goog-Api-Key"))
	}
}

func TestUsageAndCost(t *testing.T) { llmtest.RunUsageAndCost(t, target) }

func TestMissingKey(t *testing.T) { llmtest.RunMissingKey(t, target) }

func TestAbortMidStream(t *testing.T) { llmtest.RunAbortMidStream(t, target) }

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		raw     string
		tools   bool
		want    llm.StopReason
		wantErr string
	}{
		{"STOP", false, llm.StopStop, ""},
		{"STOP", true, llm.StopToolUse, ""},
		{"MAX_TOKENS", false, llm.StopLength, ""},
		{"SAFETY", false, llm.StopError, "Provider finishReason: SAFETY"},
		{"MALFORMED_FUNCTION_CALL", false, llm.StopError, "Provider finishReason: MALFORMED_FUNCTION_CALL"},
	}
	for _, tt := range tests {
		resp := llmtest.Response{Text: "partial", RawStopReason: tt.raw}
		if tt.tools {
			resp.ToolCalls = []llmtest.Block{{Name: "ls"}}
		}
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{resp}})
		msg, c := target.Run(t, srv, &llm.Request{})
		srv.Close()
		if msg.StopReason != tt.want || msg.ErrorMessage != tt.wantErr {
			t.Errorf("%s: got %s %q", tt.raw, msg.StopReason, msg.ErrorMessage)
		}
		if tt.want == llm.StopError && (msg.Text() != "partial" || c.Last().Type != llm.EventError) {
			t.Errorf("%s: partial %q", tt.raw, msg.Text())
		}
	}
}

func TestFastPathAgrees(t *testing.T) { llmtest.RunFastPathAgrees(t, target, &fastPath, generatedIDs) }

func generatedIDs(b []byte) []byte { return generatedID.ReplaceAll(b, []byte(`"${1}_ID"`)) }
