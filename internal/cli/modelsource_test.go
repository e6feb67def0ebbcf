package cli

import (
	"context"
	"fmt"

	"github.com/relay-agent/relay/internal/llm/anthropic"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
)

// enableInstallTelemetry controls the provider attribution headers.
func TestModelSourceAttribution(t *testing.T) {
	reg, err := models.NewRegistry(models.Options{Getenv: func(k string) string {
		if k == "OPENROUTER_API_KEY" {
			return "k"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := &llm.Model{Provider: "openrouter", ID: "x", API: llm.APIOpenAICompletions, BaseURL: "https://openrouter.ai/api/v1"}
	for _, on := range []bool{true, false} {
		src := &modelSource{reg: reg, attribution: on}
		_, h, err := src.Auth(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if got := h["X-OpenRouter-Title"] != ""; got != on {
			t.Errorf("attribution=%v: headers %v", on, h)
		}
	}
}

// Each API gets its own wire client; the cloud ones read their provider's
// environment, and Bedrock's client (AWS configuration, credential cache)
// is made once per provider.
func TestModelSourceClients(t *testing.T) {
	reg, err := models.NewRegistry(models.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	src := &modelSource{reg: reg}
	for api, want := range map[string]string{
		llm.APIAnthropicMessages:  "*anthropic.Client",
		llm.APIOpenAICompletions:  "*openai.Client",
		llm.APIOpenAIResponses:    "*responses.Client",
		"openai-codex-responses":  "*responses.CodexClient",
		"azure-openai-responses":  "*responses.Azure",
		llm.APIGoogleGenerativeAI: "*gemini.Client",
		"bedrock-converse-stream": "*bedrock.Client",
		"google-vertex":           "*vertex.Client",
		"mistral-conversations":   "*mistral.Client",
	} {
		c, err := src.Client(&llm.Model{Provider: "p", ID: "m", API: api})
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if got := fmt.Sprintf("%T", c); got != want {
			t.Errorf("%s: client %s, want %s", api, got, want)
		}
	}
	a, _ := src.Client(&llm.Model{Provider: "amazon-bedrock", ID: "a", API: "bedrock-converse-stream"})
	b, _ := src.Client(&llm.Model{Provider: "amazon-bedrock", ID: "b", API: "bedrock-converse-stream"})
	if a != b {
		t.Error("a second Bedrock client was made for the same provider")
	}
	// Copilot's endpoint comes from its sign-in, per request.
	if c, _ := src.Client(&llm.Model{Provider: "github-copilot", ID: "m", API: llm.APIOpenAICompletions}); fmt.Sprintf("%T", c) != "cli.accountClient" {
		t.Errorf("github-copilot client %T", c)
	}
	if _, err := src.Client(&llm.Model{Provider: "p", ID: "m", API: "unknown-api"}); err == nil {
		t.Error("unknown API accepted")
	}
}

// Anthropic workload identity federation gets a client with a token
// exchanger, made once; without it the plain client.
func TestModelSourceAnthropicFederation(t *testing.T) {
	env := map[string]string{"ANTHROPIC_FEDERATION_RULE_ID": "fdrl_1", "ANTHROPIC_ORGANIZATION_ID": "org_1", "ANTHROPIC_IDENTITY_TOKEN": "jwt"}
	reg, err := models.NewRegistry(models.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	src := &modelSource{reg: reg}
	m := &llm.Model{Provider: "anthropic", ID: "claude-opus-4-8", API: llm.APIAnthropicMessages}
	a, _ := src.Client(m)
	b, _ := src.Client(m)
	if ac, ok := a.(*anthropic.Client); !ok || ac.Federation == nil || a != b {
		t.Fatalf("federated client %#v (same: %v)", a, a == b)
	}
	other, _ := src.Client(&llm.Model{Provider: "kimi-coding", ID: "k", API: llm.APIAnthropicMessages})
	if oc := other.(*anthropic.Client); oc.Federation != nil {
		t.Error("federation applied to another anthropic-messages provider")
	}
}
