package bedrock

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/bedrock/bedrocktest"
)

const claudeID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

func claude(base string) *llm.Model {
	return &llm.Model{ID: claudeID, Name: "Claude Sonnet 4.5", API: API, Provider: "amazon-bedrock", BaseURL: base,
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 64000,
		Cost: llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
}

// env is a hermetic provider environment: static keys of the fake and
// AWS config files that do not exist, so nothing of the machine's leaks in.
func env(t *testing.T, srv *bedrocktest.Server, extra map[string]string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	m := map[string]string{
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_ACCESS_KEY_ID":           srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY":       srv.SecretKey,
		"AWS_REGION":                  srv.Region,
	}
	for k, v := range extra {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

func userText(s string) llm.Message { return &llm.UserMessage{Content: llm.StringContent(s)} }

func run(t *testing.T, c *Client, req *llm.Request) (*llm.AssistantMessage, []llm.AssistantEvent) {
	t.Helper()
	var evs []llm.AssistantEvent
	msg := c.Stream(context.Background(), req, func(e llm.AssistantEvent) { evs = append(evs, e) })
	return msg, evs
}

func TestStreamThinkingTextAndToolCall(t *testing.T) {
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: [][]byte{
		bedrocktest.MessageStart(),
		bedrocktest.ThinkingDelta(0, "Let me "),
		bedrocktest.ThinkingDelta(0, "look."),
		bedrocktest.SignatureDelta(0, "sig-part-1"),
		bedrocktest.SignatureDelta(0, "+part-2"),
		bedrocktest.BlockStop(0),
		bedrocktest.TextDelta(1, "Reading "),
		bedrocktest.TextDelta(1, "the file \"a.go\"\n"),
		bedrocktest.BlockStop(1),
		bedrocktest.ToolStart(2, "tooluse_Ab1", "read"),
		bedrocktest.ToolDelta(2, `{"path":`),
		bedrocktest.ToolDelta(2, `"a.go"}`),
		bedrocktest.BlockStop(2),
		bedrocktest.MessageStop("tool_use"),
		bedrocktest.Metadata(1200, 80, 1000, 50),
	}})
	defer srv.Close()
	c := New(Config{Getenv: env(t, srv, map[string]string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": srv.URL})})
	req := &llm.Request{Model: claude(""), APIKey: llm.AmbientKey, SystemPrompt: "You are terse.",
		Messages:      []llm.Message{userText("read a.go")},
		Tools:         []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		ThinkingLevel: llm.ThinkingMedium, Headers: map[string]string{"X-Team": "core", "X-Amz-Date": "forged"}}
	msg, evs := run(t, c, req)
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s: %s", msg.StopReason, msg.ErrorMessage)
	}
	if len(msg.Content) != 3 {
		t.Fatalf("content %d blocks: %+v", len(msg.Content), msg.Content)
	}
	th := msg.Content[0].(*llm.ThinkingContent)
	if th.Thinking != "Let me look." || th.ThinkingSignature != "sig-part-1+part-2" {
		t.Errorf("thinking %+v", th)
	}
	if tx := msg.Content[1].(*llm.TextContent).Text; tx != "Reading the file \"a.go\"\n" {
		t.Errorf("text %q", tx)
	}
	tc := msg.Content[2].(*llm.ToolCall)
	if tc.ID != "tooluse_Ab1" || tc.Name != "read" || string(tc.Arguments) != `{"path":"a.go"}` {
		t.Errorf("tool call %+v args %s", tc, tc.Arguments)
	}
	u := msg.Usage
	if u.Input != 1200 || u.Output != 80 || u.CacheRead != 1000 || u.CacheWrite != 50 || u.Cost.Total == 0 {
		t.Errorf("usage %+v", u)
	}
	if evs[0].Type != llm.EventStart || evs[len(evs)-1].Type != llm.EventDone {
		t.Errorf("events start %s end %s", evs[0].Type, evs[len(evs)-1].Type)
	}

	rq := srv.Requests()
	if len(rq) != 1 || !rq[0].SignatureOK {
		t.Fatalf("requests %d, signature: %s", len(rq), rq[0].SignatureNote)
	}
	if want := "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"; rq[0].Path != want {
		t.Errorf("path %s, want %s", rq[0].Path, want)
	}
	if rq[0].Header.Get("X-Team") != "core" || rq[0].Header.Get("X-Amz-Date") == "forged" {
		t.Errorf("headers: X-Team %q, X-Amz-Date %q", rq[0].Header.Get("X-Team"), rq[0].Header.Get("X-Amz-Date"))
	}
	var body map[string]any
	if err := json.Unmarshal(rq[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	sys := body["system"].([]any)
	if len(sys) != 2 || sys[0].(map[string]any)["text"] != "You are terse." || sys[1].(map[string]any)["cachePoint"] == nil {
		t.Errorf("system %v", sys)
	}
	msgs := body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	if last[len(last)-1].(map[string]any)["cachePoint"] == nil {
		t.Errorf("no cache point after the last user message: %v", last)
	}
	add := body["additionalModelRequestFields"].(map[string]any)
	thk := add["thinking"].(map[string]any)
	if thk["type"] != "enabled" || thk["budget_tokens"].(float64) != 8192 {
		t.Errorf("thinking %v", add)
	}
	if ic := body["inferenceConfig"].(map[string]any); ic["maxTokens"].(float64) != 32000+8192 {
		t.Errorf("inferenceConfig %v", ic)
	}
	tools := body["toolConfig"].(map[string]any)["tools"].([]any)
	if spec := tools[0].(map[string]any)["toolSpec"].(map[string]any); spec["name"] != "read" || spec["inputSchema"].(map[string]any)["json"] == nil {
		t.Errorf("tools %v", tools)
	}
}

func TestReplayAndAdaptiveThinking(t *testing.T) {
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: bedrocktest.TextAnswer("done", 2)})
	defer srv.Close()
	c := New(Config{Getenv: env(t, srv, nil)})
	m := claude(srv.URL)
	m.ID, m.Name = "us.anthropic.claude-opus-4-7-v1", "Claude Opus 4.7"
	prev := &llm.AssistantMessage{API: API, Provider: m.Provider, Model: m.ID, StopReason: llm.StopToolUse, Content: llm.Blocks{
		&llm.ThinkingContent{Thinking: "plan", ThinkingSignature: "sig"},
		&llm.ThinkingContent{Thinking: "[Reasoning redacted]", ThinkingSignature: base64.StdEncoding.EncodeToString([]byte{1, 2, 3}), Redacted: true},
		&llm.ToolCall{ID: "t1", Name: "ls", Arguments: json.RawMessage(`{}`)},
		&llm.ToolCall{ID: "t2", Name: "ls", Arguments: json.RawMessage(`{"path":"x"}`)},
	}}
	req := &llm.Request{Model: m, ThinkingLevel: llm.ThinkingXHigh, Messages: []llm.Message{
		userText("list"), prev,
		&llm.ToolResultMessage{ToolCallID: "t1", Content: llm.Blocks{&llm.TextContent{Text: "a b"}}},
		&llm.ToolResultMessage{ToolCallID: "t2", IsError: true, Content: llm.Blocks{&llm.TextContent{Text: "  "}}},
	}, CacheRetention: llm.CacheLong}
	m.ThinkingLevelMap = map[string]*string{"xhigh": ptr("xhigh")}
	msg, _ := run(t, c, req)
	if msg.StopReason != llm.StopStop || msg.Text() != "done" {
		t.Fatalf("%s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
		Add map[string]any `json:"additionalModelRequestFields"`
	}
	rq := srv.Requests()[0]
	if err := json.Unmarshal(rq.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 {
		t.Fatalf("messages %+v", body.Messages)
	}
	a := body.Messages[1].Content
	if rt := a[0]["reasoningContent"].(map[string]any)["reasoningText"].(map[string]any); rt["signature"] != "sig" {
		t.Errorf("signed thinking %v", a[0])
	}
	if rc := a[1]["reasoningContent"].(map[string]any); rc["redactedContent"] != "AQID" {
		t.Errorf("redacted %v", a[1])
	}
	results := body.Messages[2].Content
	if len(results) != 3 || results[1]["toolResult"].(map[string]any)["status"] != "error" {
		t.Errorf("tool results in one message: %v", results)
	}
	if cp := results[2]["cachePoint"].(map[string]any); cp["ttl"] != "1h" {
		t.Errorf("long cache point %v", results[2])
	}
	th := body.Add["thinking"].(map[string]any)
	if th["type"] != "adaptive" || body.Add["output_config"].(map[string]any)["effort"] != "xhigh" || th["block_binding"] == nil {
		t.Errorf("adaptive thinking %v", body.Add)
	}
}

func ptr(s string) *string { return &s }

func TestProfileWithSessionTokenAndRegion(t *testing.T) {
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: bedrocktest.TextAnswer("hi from profile", 4)})
	defer srv.Close()
	srv.AccessKey, srv.SecretKey, srv.SessionToken, srv.Region = "ASIAPROFILE", "profile-secret", "profile-session", "eu-west-3"
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(cfg, []byte("[profile dev]\nregion = eu-west-3\n"), 0o600)
	os.WriteFile(creds, []byte("[dev]\naws_access_key_id = ASIAPROFILE\naws_secret_access_key = profile-secret\naws_session_token = profile-session\n"), 0o600)
	get := env(t, srv, map[string]string{"AWS_CONFIG_FILE": cfg, "AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_PROFILE": "dev",
		"AWS_REGION": "", "AWS_ACCESS_KEY_ID": "AKIDWRONG", "AWS_SECRET_ACCESS_KEY": "wrong", "AWS_ENDPOINT_URL": srv.URL})
	msg, _ := run(t, New(Config{Getenv: get}), &llm.Request{Model: claude(""), Messages: []llm.Message{userText("hi")}})
	if msg.Text() != "hi from profile" {
		rq := srv.Requests()
		t.Fatalf("%s %s (signature: %s)", msg.StopReason, msg.ErrorMessage, rq[len(rq)-1].SignatureNote)
	}
}

func TestBearerToken(t *testing.T) {
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: bedrocktest.TextAnswer("bearer ok", 3)})
	defer srv.Close()
	srv.Bearer = "ABSKbedrock-api-key"
	get := env(t, srv, map[string]string{"AWS_BEARER_TOKEN_BEDROCK": srv.Bearer, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
	msg, _ := run(t, New(Config{Getenv: get}), &llm.Request{Model: claude(srv.URL), Messages: []llm.Message{userText("hi")}})
	if msg.Text() != "bearer ok" {
		t.Fatalf("%s %s", msg.StopReason, msg.ErrorMessage)
	}
	if h := srv.Requests()[0].Header; h.Get("X-Amz-Date") != "" {
		t.Errorf("bearer request was also signed: %v", h)
	}

	// A key stored with /login is a bearer token too.
	get = env(t, srv, map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
	msg, _ = run(t, New(Config{Getenv: get}), &llm.Request{Model: claude(srv.URL), APIKey: srv.Bearer, Messages: []llm.Message{userText("hi")}})
	if msg.Text() != "bearer ok" {
		t.Fatalf("stored key: %s %s", msg.StopReason, msg.ErrorMessage)
	}
}

func TestRegionAndEndpointResolution(t *testing.T) {
	arn := "arn:aws:bedrock:ap-southeast-2:123456789012:application-inference-profile/abc123"
	cases := []struct {
		name       string
		id, base   string
		env        map[string]string
		wantRegion string
		wantURL    string
	}{
		{"region env and standard catalog URL", claudeID, "https://bedrock-runtime.us-east-1.amazonaws.com", map[string]string{"AWS_REGION": "eu-central-1"},
			"eu-central-1", "https://bedrock-runtime.eu-central-1.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"no region: the catalog URL pins it", claudeID, "https://bedrock-runtime.us-west-2.amazonaws.com", map[string]string{"AWS_REGION": ""},
			"us-west-2", "https://bedrock-runtime.us-west-2.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"default region", claudeID, "", map[string]string{"AWS_REGION": ""},
			"us-east-1", "https://bedrock-runtime.us-east-1.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"AWS_DEFAULT_REGION", claudeID, "", map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "ca-central-1"},
			"ca-central-1", "https://bedrock-runtime.ca-central-1.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"ARN region wins", arn, "", map[string]string{"AWS_REGION": "us-east-1"},
			"ap-southeast-2", "https://bedrock-runtime.ap-southeast-2.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aap-southeast-2%3A123456789012%3Aapplication-inference-profile%2Fabc123/converse-stream"},
		{"proxy base URL kept", claudeID, "https://llm-proxy.corp.example/bedrock", map[string]string{"AWS_REGION": "us-east-2"},
			"us-east-2", "https://llm-proxy.corp.example/bedrock/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"service endpoint env beats all", claudeID, "https://llm-proxy.corp.example", map[string]string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "http://localhost:4566", "AWS_ENDPOINT_URL": "http://other"},
			"us-east-1", "http://localhost:4566/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"global endpoint env", claudeID, "", map[string]string{"AWS_ENDPOINT_URL": "http://other:1"},
			"us-east-1", "http://other:1/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"endpoint envs ignored", claudeID, "", map[string]string{"AWS_ENDPOINT_URL": "http://other:1", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"},
			"us-east-1", "https://bedrock-runtime.us-east-1.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"FIPS", claudeID, "", map[string]string{"AWS_REGION": "us-gov-west-1", "AWS_USE_FIPS_ENDPOINT": "true"},
			"us-gov-west-1", "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
		{"China partition", claudeID, "", map[string]string{"AWS_REGION": "cn-north-1"},
			"cn-north-1", "https://bedrock-runtime.cn-north-1.amazonaws.com.cn/model/" + strings.ReplaceAll(claudeID, ":", "%3A") + "/converse-stream"},
	}
	srv := bedrocktest.NewServer()
	defer srv.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{Getenv: env(t, srv, tc.env)})
			m := claude(tc.base)
			m.ID = tc.id
			tg, pe := c.resolve(context.Background(), &llm.Request{Model: m})
			if pe != nil {
				t.Fatal(pe)
			}
			if tg.region != tc.wantRegion || tg.url.String() != tc.wantURL {
				t.Errorf("region %s url %s\nwant   %s url %s", tg.region, tg.url, tc.wantRegion, tc.wantURL)
			}
		})
	}
}

func TestRedactedReasoning(t *testing.T) {
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: [][]byte{
		bedrocktest.MessageStart(),
		bedrocktest.RedactedDelta(0, []byte{0xde, 0xad}),
		bedrocktest.RedactedDelta(0, []byte{0xbe, 0xef}),
		bedrocktest.BlockStop(0),
		bedrocktest.TextDelta(1, "ok"),
		bedrocktest.MessageStop("end_turn"),
	}})
	defer srv.Close()
	m := claude(srv.URL)
	m.ID, m.Name = "openai.gpt-oss-120b-1:0", "gpt-oss-120b"
	msg, _ := run(t, New(Config{Getenv: env(t, srv, nil)}), &llm.Request{Model: m, Messages: []llm.Message{userText("hi")}})
	if msg.StopReason != llm.StopStop {
		t.Fatal(msg.ErrorMessage)
	}
	th := msg.Content[0].(*llm.ThinkingContent)
	if !th.Redacted || th.ThinkingSignature != base64.StdEncoding.EncodeToString([]byte{0xde, 0xad, 0xbe, 0xef}) || th.Thinking != redactedPlaceholder {
		t.Errorf("redacted block %+v", th)
	}
	var body map[string]any
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if _, ok := body["system"]; ok || body["inferenceConfig"] != nil {
		t.Errorf("a non-Claude model without system prompt or max tokens: %s", srv.Requests()[0].Body)
	}
}

func TestFaults(t *testing.T) {
	partial := [][]byte{bedrocktest.MessageStart(), bedrocktest.TextDelta(0, "partial "), bedrocktest.TextDelta(0, "answer"),
		bedrocktest.BlockStop(0), bedrocktest.ToolStart(1, "t1", "write"), bedrocktest.ToolDelta(1, `{"path":"a.txt","con`)}
	with := func(extra ...[]byte) [][]byte { return append(append([][]byte(nil), partial...), extra...) }
	badCRC := bedrocktest.TextDelta(0, "x")
	badCRC[len(badCRC)-1] ^= 0xff
	cases := []struct {
		name     string
		resp     []bedrocktest.Response
		retries  int
		wrongKey bool
		kind     llm.ErrorKind
		has      []string
		keep     string
		requests int
	}{
		{name: "throttled", resp: []bedrocktest.Response{{Status: 429, ErrorType: "ThrottlingException", Message: "Too many requests, please wait before trying again."}},
			kind: llm.ErrRateLimit, has: []string{"throttled", "us-east-1", claudeID}, requests: 1},
		{name: "throttled then answered with provider retry", resp: []bedrocktest.Response{{Status: 429, ErrorType: "ThrottlingException", Message: "slow down"}, {Frames: bedrocktest.TextAnswer("recovered", 4)}},
			retries: 2, keep: "recovered", requests: 2},
		{name: "access denied", resp: []bedrocktest.Response{{Status: 403, ErrorType: "AccessDeniedException", Message: "User: arn:aws:iam::1:user/x is not authorized to perform: bedrock:InvokeModelWithResponseStream"}},
			retries: 2, kind: llm.ErrAuth, has: []string{"access denied", "region us-east-1", claudeID, "bedrock:InvokeModelWithResponseStream"}, requests: 1},
		{name: "model not enabled", resp: []bedrocktest.Response{{Status: 403, ErrorType: "AccessDeniedException", Message: "You don't have access to the model with the specified model ID."}},
			kind: llm.ErrAuth, has: []string{"not enabled", "us-east-1", claudeID, "Model access"}, requests: 1},
		{name: "on-demand not supported", resp: []bedrocktest.Response{{Status: 400, ErrorType: "ValidationException", Message: "Invocation of model ID anthropic.claude with on-demand throughput isn’t supported."}},
			kind: llm.ErrInvalidRequest, has: []string{"not enabled", "inference profile"}, requests: 1},
		{name: "model not found", resp: []bedrocktest.Response{{Status: 404, ErrorType: "ResourceNotFoundException", Message: "Model not found"}},
			kind: llm.ErrInvalidRequest, has: []string{"not found", "us-east-1"}, requests: 1},
		{name: "wrong secret", wrongKey: true, resp: []bedrocktest.Response{{Frames: bedrocktest.TextAnswer("never", 4)}},
			kind: llm.ErrAuth, has: []string{"InvalidSignatureException", "signature"}, requests: 1},
		{name: "500 retries exhausted", resp: []bedrocktest.Response{{Status: 500, ErrorType: "InternalServerException", Message: "boom"}},
			retries: 1, kind: llm.ErrServer, requests: 2},
		{name: "throttling inside the stream", resp: []bedrocktest.Response{{Frames: with(bedrocktest.Exception("throttlingException", "Too many tokens"))}},
			kind: llm.ErrRateLimit, has: []string{"Throttling error: Too many tokens", claudeID}, keep: "partial answer", requests: 1},
		{name: "validation inside the stream", resp: []bedrocktest.Response{{Frames: with(bedrocktest.Exception("validationException", "Input is too long for requested model."))}},
			kind: llm.ErrContextOverflow, keep: "partial answer", requests: 1},
		{name: "connection cut", resp: []bedrocktest.Response{{Frames: with(bedrocktest.MessageStop("end_turn")), CutAfter: len(partial)}},
			kind: llm.ErrNetwork, keep: "partial answer", requests: 1},
		{name: "garbage", resp: []bedrocktest.Response{{Frames: partial, Garbage: []byte("<html>502 Bad Gateway</html>\n")}},
			kind: llm.ErrMalformed, keep: "partial answer", requests: 1},
		{name: "bad checksum", resp: []bedrocktest.Response{{Frames: with(badCRC)}},
			kind: llm.ErrMalformed, has: []string{"checksum"}, keep: "partial answer", requests: 1},
		{name: "ends without stop", resp: []bedrocktest.Response{{Frames: partial}},
			kind: llm.ErrNetwork, has: []string{"without a stop reason"}, keep: "partial answer", requests: 1},
		{name: "guardrail stop", resp: []bedrocktest.Response{{Frames: [][]byte{bedrocktest.TextDelta(0, "x"), bedrocktest.MessageStop("guardrail_intervened")}}},
			kind: llm.ErrOther, has: []string{"Provider stopped with: guardrail_intervened"}, requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := bedrocktest.NewServer(tc.resp...)
			defer srv.Close()
			get := env(t, srv, nil)
			if tc.wrongKey {
				get = env(t, srv, map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"})
			}
			req := &llm.Request{Model: claude(srv.URL), Messages: []llm.Message{userText("hi")}, MaxRetries: tc.retries,
				Sleep: func(context.Context, time.Duration) error { return nil }}
			msg, _ := run(t, New(Config{Getenv: get}), req)
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.kind == "" {
				if msg.StopReason != llm.StopStop || msg.Text() != tc.keep {
					t.Fatalf("%s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
				}
				return
			}
			if msg.StopReason != llm.StopError || msg.Err == nil || msg.Err.Kind != tc.kind {
				t.Fatalf("stop %s err %+v, want kind %s", msg.StopReason, msg.Err, tc.kind)
			}
			for _, h := range tc.has {
				if !strings.Contains(msg.ErrorMessage, h) {
					t.Errorf("message %q lacks %q", msg.ErrorMessage, h)
				}
			}
			if tc.keep != "" && !strings.HasPrefix(msg.Text(), tc.keep) {
				t.Errorf("kept %q, want %q", msg.Text(), tc.keep)
			}
		})
	}
}

func TestAbortMidStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: bedrocktest.TextAnswer(strings.Repeat("x", 4096), 1)})
	defer srv.Close()
	n := 0
	msg := New(Config{Getenv: env(t, srv, nil)}).Stream(ctx, &llm.Request{Model: claude(srv.URL), Messages: []llm.Message{userText("hi")}},
		func(e llm.AssistantEvent) {
			if e.Type == llm.EventTextDelta {
				if n++; n == 10 {
					cancel()
				}
			}
		})
	if msg.StopReason != llm.StopAborted {
		t.Fatalf("stop %s: %s", msg.StopReason, msg.ErrorMessage)
	}
}

func TestDecoderRejectsOversizeFrame(t *testing.T) {
	f := bedrocktest.Frame(nil, []byte("{}"))
	// Claim 1 GiB; the prelude CRC is fixed up so only the bound catches it.
	huge := bytes.Clone(f)
	huge[0], huge[1], huge[2], huge[3] = 0x40, 0, 0, 0
	fixPreludeCRC(huge)
	var fr frame
	err := newDecoder(bytes.NewReader(huge)).next(&fr)
	var fe *formatError
	if err == nil || !asFormat(err, &fe) || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("err %v", err)
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add(bytes.Join(bedrocktest.TextAnswer("hello world", 3), nil))
	f.Add(bedrocktest.Exception("throttlingException", "x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newDecoder(bytes.NewReader(data))
		var fr frame
		for range 1000 {
			if d.next(&fr) != nil {
				return
			}
		}
	})
}

var _ = http.StatusOK

// TestDeltaDecodersAgree: the same deltas in the common layout (fast
// paths) and in another member order or with escapes (encoding/json) give
// the same answer.
func TestDeltaDecodersAgree(t *testing.T) {
	texts := []string{"plain ", "quote \" and \\ backslash ", "line\nbreak\t", "ünïcødé ✓ ", "\u2028sep"}
	var fast, slow [][]byte
	fast = append(fast, bedrocktest.MessageStart())
	slow = append(slow, bedrocktest.MessageStart())
	for _, s := range texts {
		fast = append(fast, bedrocktest.TextDelta(0, s))
		slow = append(slow, bedrocktest.Event("contentBlockDelta", map[string]any{"delta": map[string]any{"text": s}, "contentBlockIndex": 0}))
	}
	stop := [][]byte{bedrocktest.MessageStop("end_turn")}
	srv := bedrocktest.NewServer(bedrocktest.Response{Frames: append(fast, stop...)}, bedrocktest.Response{Frames: append(slow, stop...)})
	defer srv.Close()
	c := New(Config{Getenv: env(t, srv, nil)})
	want := strings.Join(texts, "")
	for i := range 2 {
		msg, _ := run(t, c, &llm.Request{Model: claude(srv.URL), Messages: []llm.Message{userText("hi")}})
		if msg.Text() != want {
			t.Errorf("run %d: %q, want %q (%s)", i, msg.Text(), want, msg.ErrorMessage)
		}
	}
}
