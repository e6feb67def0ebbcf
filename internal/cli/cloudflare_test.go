package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
	"github.com/relay-agent/relay/internal/models"
)

// A Cloudflare AI Gateway model reaches the account's gateway named by the
// ids in auth.json's env for the provider, authenticated with
// cf-aig-authorization only; without the gateway id the request fails
// naming the variable, before anything is sent.
func TestCloudflareGatewayRequest(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "hi from the gateway"}}})
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("models.json", `{"providers":{"cloudflare-ai-gateway":{"baseUrl":"`+srv.URL+`/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/anthropic"}}}`)
	write("auth.json", `{"cloudflare-ai-gateway":{"type":"api_key","key":"cf-key","env":{"CLOUDFLARE_ACCOUNT_ID":"acc1","CLOUDFLARE_GATEWAY_ID":"gw1"}}}`)
	open := func() *modelSource {
		t.Helper()
		reg, err := models.NewRegistry(models.Options{ModelsJSON: filepath.Join(dir, "models.json"), AuthJSON: filepath.Join(dir, "auth.json"),
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return &modelSource{reg: reg}
	}
	src := open()
	stream := func(m *llm.Model) *llm.AssistantMessage {
		t.Helper()
		key, headers, err := src.Auth(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		c, err := src.Client(m)
		if err != nil {
			t.Fatal(err)
		}
		req := &llm.Request{Model: m, APIKey: key, Headers: headers,
			Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hello")}}}
		return c.Stream(context.Background(), req, func(llm.AssistantEvent) {})
	}
	m := src.reg.Find("cloudflare-ai-gateway", "claude-opus-5.5")
	if m == nil || m.API != llm.APIAnthropicMessages {
		t.Fatalf("model %+v", m)
	}
	msg := stream(m)
	if msg.StopReason != llm.StopStop || msg.Text() != "hi from the gateway" {
		t.Fatalf("answer %q stop %s err %q", msg.Text(), msg.StopReason, msg.ErrorMessage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/acc1/gw1/anthropic/v1/messages" {
		t.Errorf("path %s", r.Path)
	}
	if got := r.Header.Get("cf-aig-authorization"); got != "Bearer cf-key" {
		t.Errorf("cf-aig-authorization = %q", got)
	}
	if r.Header.Get("x-api-key") != "" || r.Header.Get("Authorization") != "" {
		t.Errorf("the gateway key leaked to the upstream credentials: x-api-key %q authorization %q",
			r.Header.Get("x-api-key"), r.Header.Get("Authorization"))
	}

	// Without the gateway id: a clear error, no request.
	write("auth.json", `{"cloudflare-ai-gateway":{"type":"api_key","key":"cf-key","env":{"CLOUDFLARE_ACCOUNT_ID":"acc1"}}}`)
	src = open()
	msg = stream(m)
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "CLOUDFLARE_GATEWAY_ID is required for provider cloudflare-ai-gateway") {
		t.Fatalf("stop %s err %q", msg.StopReason, msg.ErrorMessage)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a request was sent without the gateway id (%d requests)", n)
	}
}
