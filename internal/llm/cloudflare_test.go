package llm

import (
	"strings"
	"testing"
)

func TestCloudflareRequest(t *testing.T) {
	env := func(vals map[string]string) func(string) string {
		return func(k string) string { return vals[k] }
	}
	gw := "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/anthropic"
	workers := "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
	ids := map[string]string{"CLOUDFLARE_ACCOUNT_ID": "acc1", "CLOUDFLARE_GATEWAY_ID": "gw1"}
	for _, c := range []struct {
		name, provider, base, key string
		env                       map[string]string
		wantBase, wantKey, wantCF string
		wantErr                   string
	}{
		{name: "workers", provider: ProviderCloudflareWorkersAI, base: workers, key: "k", env: ids,
			wantBase: "https://api.cloudflare.com/client/v4/accounts/acc1/ai/v1", wantKey: "k"},
		{name: "gateway moves the key", provider: ProviderCloudflareAIGateway, base: gw, key: "k", env: ids,
			wantBase: "https://gateway.ai.cloudflare.com/v1/acc1/gw1/anthropic", wantCF: "Bearer k"},
		{name: "missing gateway id", provider: ProviderCloudflareAIGateway, base: gw, key: "k",
			env: map[string]string{"CLOUDFLARE_ACCOUNT_ID": "acc1"}, wantErr: "CLOUDFLARE_GATEWAY_ID is required for provider cloudflare-ai-gateway but is not set."},
		{name: "missing account id", provider: ProviderCloudflareWorkersAI, base: workers, key: "k",
			env: map[string]string{}, wantErr: "CLOUDFLARE_ACCOUNT_ID is required for provider cloudflare-workers-ai"},
		{name: "a configured base without placeholders", provider: ProviderCloudflareWorkersAI, base: "https://proxy.test/v1", key: "k",
			env: map[string]string{}, wantBase: "https://proxy.test/v1", wantKey: "k"},
		{name: "other providers untouched", provider: "openai", base: "https://x/{CLOUDFLARE_ACCOUNT_ID}", key: "k",
			env: map[string]string{}, wantBase: "https://x/{CLOUDFLARE_ACCOUNT_ID}", wantKey: "k"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &Request{Model: &Model{Provider: c.provider, BaseURL: c.base}, APIKey: c.key, Headers: map[string]string{"x-other": "1"}}
			out, perr := CloudflareRequest(in, env(c.env))
			if c.wantErr != "" {
				if perr == nil || !strings.Contains(perr.Message, c.wantErr) || perr.Kind != ErrInvalidRequest {
					t.Fatalf("err = %+v, want %q", perr, c.wantErr)
				}
				return
			}
			if perr != nil {
				t.Fatal(perr)
			}
			if out.Model.BaseURL != c.wantBase || out.APIKey != c.wantKey || out.Headers["cf-aig-authorization"] != c.wantCF {
				t.Fatalf("got base %q key %q cf %q", out.Model.BaseURL, out.APIKey, out.Headers["cf-aig-authorization"])
			}
			if out.Headers["x-other"] != "1" {
				t.Fatalf("headers lost: %v", out.Headers)
			}
			// The caller's request and model are not changed.
			if in.Model.BaseURL != c.base || in.APIKey != c.key || in.Headers["cf-aig-authorization"] != "" {
				t.Fatalf("input modified: %+v %v", in.Model, in.Headers)
			}
		})
	}
}
