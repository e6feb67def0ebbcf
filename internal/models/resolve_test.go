package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

func TestResolve(t *testing.T) {
	r, err := registryFor(t, "", map[string]string{"OPENROUTER_API_KEY": "or", "TOGETHER_API_KEY": "tg"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pattern, provider string
		wantRef           string
		wantLevel         llm.ThinkingLevel
		wantErr           string
		wantWarn          string
	}{
		// OpenCode Zen serves the same id: bare, it is ambiguous without a
		// key (as in the original); the provider prefix settles it.
		{pattern: "claude-opus-4-8", wantErr: "ambiguous across providers: anthropic/claude-opus-4-8, opencode/claude-opus-4-8"},
		{pattern: "anthropic/claude-opus-4-8", wantRef: "anthropic/claude-opus-4-8"},
		{pattern: "ANTHROPIC/Claude-Opus-4-8", wantRef: "anthropic/claude-opus-4-8"},
		{pattern: "claude-opus-4-8:high", provider: "anthropic", wantRef: "anthropic/claude-opus-4-8", wantLevel: llm.ThinkingHigh},
		{pattern: "anthropic/claude-opus-4-8:xhigh", wantRef: "anthropic/claude-opus-4-8", wantLevel: llm.ThinkingXHigh},
		// --provider restricts and tolerates a repeated prefix.
		{pattern: "claude-opus-4-8", provider: "openrouter", wantRef: "openrouter/claude-opus-4-8",
			wantWarn: `Model "claude-opus-4-8" not found for provider "openrouter". Using custom model id.`},
		{pattern: "anthropic/claude-opus-4.8", provider: "openrouter", wantRef: "openrouter/anthropic/claude-opus-4.8"},
		{pattern: "openrouter/anthropic/claude-opus-4.8", provider: "OpenRouter", wantRef: "openrouter/anthropic/claude-opus-4.8"},
		// A slash id whose prefix is also a provider: provider/id first,
		// then the literal id on another provider.
		{pattern: "anthropic/claude-sonnet-4.6", wantRef: "openrouter/anthropic/claude-sonnet-4.6"},
		// Fuzzy: substring of id or name; alias beats dated; highest id wins.
		// (Across providers the highest id wins too: Bedrock's
		// us.anthropic.* profiles, as in the original.)
		{pattern: "sonnet-4-5", provider: "anthropic", wantRef: "anthropic/claude-sonnet-4-5"},
		{pattern: "sonnet-4-5", wantRef: "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{pattern: "haiku-4-5-2025", provider: "anthropic", wantRef: "anthropic/claude-haiku-4-5-20251001"},
		{pattern: "Gemini 2.5 Flash-Lite", wantRef: "google/gemini-2.5-flash-lite"},
		{pattern: "kimi-k2.6", provider: "moonshotai", wantRef: "moonshotai/kimi-k2.6"},
		// (Azure, Copilot and the Cloudflare gateway serve the same ids: a
		// bare one is ambiguous without a key.)
		{pattern: "openai/gpt-5.4-mini:low", wantRef: "openai/gpt-5.4-mini", wantLevel: llm.ThinkingLow},
		{pattern: "gpt-5.4-mini", wantErr: "ambiguous across providers: azure-openai-responses/gpt-5.4-mini, cloudflare-ai-gateway/gpt-5.4-mini, github-copilot/gpt-5.4-mini, openai/gpt-5.4-mini"},
		// An exact bare id beats substring matches on other providers.
		{pattern: "gpt-oss-120b", wantRef: "cerebras/gpt-oss-120b"},
		// Ambiguous exact id across providers: the authenticated one wins.
		{pattern: "deepseek-ai/DeepSeek-V4-Pro", wantRef: "together/deepseek-ai/DeepSeek-V4-Pro"},
		// Invalid thinking suffix is part of the id in --model (strict).
		{pattern: "claude-opus-4-8:turbo", wantErr: `Model "claude-opus-4-8:turbo" not found`},
		// Unknown id of a known provider: a custom id with a warning.
		{pattern: "openai/gpt-9-preview:high", wantRef: "openai/gpt-9-preview", wantLevel: llm.ThinkingHigh,
			wantWarn: `Model "gpt-9-preview" not found for provider "openai". Using custom model id.`},
		{pattern: "x", provider: "nope", wantErr: `Unknown provider "nope"`},
		{pattern: "claude-opsu-4-8", wantErr: "Did you mean: anthropic/claude-opus-4-8"},
	}
	for _, c := range cases {
		t.Run(c.provider+"|"+c.pattern, func(t *testing.T) {
			res, err := r.ResolveModel(c.pattern, c.provider, "")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Model.Provider + "/" + res.Model.ID; got != c.wantRef {
				t.Errorf("model = %s, want %s", got, c.wantRef)
			}
			if res.Thinking != c.wantLevel {
				t.Errorf("thinking = %q, want %q", res.Thinking, c.wantLevel)
			}
			if res.Warning != c.wantWarn {
				t.Errorf("warning = %q, want %q", res.Warning, c.wantWarn)
			}
		})
	}
}

func TestResolveAmbiguousWithoutAuth(t *testing.T) {
	r, _ := registryFor(t, "", nil)
	_, _, err := r.Resolve("deepseek-ai/DeepSeek-V4-Pro", "")
	if err == nil || !strings.Contains(err.Error(), "is ambiguous across providers: huggingface/deepseek-ai/DeepSeek-V4-Pro, together/deepseek-ai/DeepSeek-V4-Pro.") ||
		!strings.Contains(err.Error(), "No matching provider is authenticated.") {
		t.Fatalf("err = %v", err)
	}
}

func TestResolveCustomIDReasoning(t *testing.T) {
	r, _ := registryFor(t, "", nil)
	res, err := r.ResolveModel("groq/some-new-model", "", llm.ThinkingHigh)
	if err != nil || !res.Model.Reasoning || res.Model.API != llm.APIOpenAICompletions || res.Model.ID != "some-new-model" {
		t.Fatalf("custom id = %+v %v", res.Model, err)
	}
	if r.Find("groq", "some-new-model") != nil {
		t.Error("a custom id must not be added to the registry")
	}
}

func TestScope(t *testing.T) {
	r, _ := registryFor(t, "", map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"})
	scoped, warnings := r.Scope(context.Background(), []string{
		"claude-opus-4-8:high",
		"anthropic/*sonnet*",
		"*SONNET-4-5*:low", // duplicates keep their first entry
		"gpt-5.5",
		"openai/gpt-4.1-?ano",
		"gemini-2.5-pro", // google has no key: not available
		"o3:turbo",
		"nothing-like-this",
	})
	var got []string
	for _, s := range scoped {
		got = append(got, s.Model.Provider+"/"+s.Model.ID+":"+string(s.Thinking))
	}
	want := []string{
		"anthropic/claude-opus-4-8:high",
		"anthropic/claude-sonnet-5-5:", "anthropic/claude-sonnet-5:", "anthropic/claude-sonnet-4-6:",
		"anthropic/claude-sonnet-4-5:", "anthropic/claude-sonnet-4-5-20250929:",
		"openai/gpt-5.5:", "openai/gpt-4.1-nano:", "openai/o3:",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("scope\n got %v\nwant %v", got, want)
	}
	wantWarn := []string{
		`No models match pattern "gemini-2.5-pro"`,
		`Invalid thinking level "turbo" in pattern "o3:turbo". Using default instead.`,
		`No models match pattern "nothing-like-this"`,
	}
	if strings.Join(warnings, "|") != strings.Join(wantWarn, "|") {
		t.Errorf("warnings\n got %q\nwant %q", warnings, wantWarn)
	}
}

func TestDefaultModel(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"GROQ_API_KEY": "g"}, "groq/openai/gpt-oss-120b"},
		{map[string]string{"GROQ_API_KEY": "g", "GEMINI_API_KEY": "k"}, "google/gemini-3.1-pro-preview"},
		{map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, "anthropic/claude-opus-4-8"},
	}
	for _, c := range cases {
		r, _ := registryFor(t, "", c.env)
		m := r.DefaultModel(context.Background())
		got := ""
		if m != nil {
			got = m.Provider + "/" + m.ID
		}
		if got != c.want {
			t.Errorf("env %v: default = %q, want %q", c.env, got, c.want)
		}
	}
}

// BenchmarkLoadAndResolve is the models part of reaching the first model
// request: build the registry (catalog + a small models.json), resolve a
// fuzzy --model pattern and its credentials.
func BenchmarkLoadAndResolve(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "models.json"), []byte(`{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","apiKey":"ollama","models":[{"id":"qwen2.5-coder:7b"}]}}}`), 0o600)
	env := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "sk"
		}
		return ""
	}
	for b.Loop() {
		r, err := NewRegistry(Options{ModelsJSON: filepath.Join(dir, "models.json"), AuthJSON: filepath.Join(dir, "auth.json"), Getenv: env})
		if err != nil {
			b.Fatal(err)
		}
		m, _, err := r.Resolve("opus-4-8:high", "")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := r.ResolveAuth(context.Background(), m, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResolveAccountCatalogs: Antigravity's models (which the original
// learns from the signed-in account) take no part in bare and fuzzy
// patterns until there is a sign-in; provider/id finds them always.
func TestResolveAccountCatalogs(t *testing.T) {
	r, _ := registryFor(t, "", map[string]string{"ANTHROPIC_API_KEY": "k"})
	for pattern, want := range map[string]string{
		// Fuzzy: the highest id of the catalogs without a sign-in (Bedrock's
		// us.* profile, as in the original), never an Antigravity model.
		"sonnet-4-5":                        "amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"claude-sonnet-4-5":                 "anthropic/claude-sonnet-4-5",
		"google-antigravity/gemini-3-flash": "google-antigravity/gemini-3-flash",
		"google-gemini-cli/gemini-2.5-pro":  "google-gemini-cli/gemini-2.5-pro",
	} {
		res, err := r.ResolveModel(pattern, "", "")
		if err != nil || res.Model.Provider+"/"+res.Model.ID != want {
			t.Errorf("%s: %v %v, want %s", pattern, res.Model, err, want)
		}
	}
	if res, err := r.ResolveModel("gemini-3-pro-high", "", ""); err == nil {
		t.Errorf("an Antigravity-only id resolved without a sign-in: %s/%s", res.Model.Provider, res.Model.ID)
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "auth.json"), []byte(fmt.Sprintf(
		`{"google-antigravity":{"type":"oauth","access":"a","refresh":"r","expires":%d,"projectId":"p"}}`, time.Now().Add(time.Hour).UnixMilli())), 0o600)
	signed, err := NewRegistry(Options{AuthJSON: filepath.Join(dir, "auth.json"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := signed.ResolveModel("gemini-3-pro-high", "", ""); err != nil || res.Model.Provider != "google-antigravity" {
		t.Errorf("signed in: %v %v", res.Model, err)
	}
}
