package cli

import (
	"context"
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
