package responses

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestAzureURL covers every combination of the variables that choose the
// base URL (AZURE_OPENAI_BASE_URL, AZURE_OPENAI_RESOURCE_NAME, the model's
// baseUrl) with and without AZURE_OPENAI_API_VERSION, then the base URL
// normalizations and the errors.
func TestAzureURL(t *testing.T) {
	const (
		envBase   = "https://env.openai.azure.com"
		modelBase = "https://model.cognitiveservices.azure.com/openai/v1"
		version   = "2025-04-01-preview"
	)
	cases := []struct {
		name                      string
		base, resource, modelBase string
		version                   string
		want                      string
		wantErr                   string
	}{
		// base URL x resource x model base x version: 16 combinations.
		{name: "nothing", wantErr: "AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME"},
		{name: "version only", version: version, wantErr: "base URL is required"},
		{name: "model base", modelBase: modelBase, want: "https://model.cognitiveservices.azure.com/openai/v1/responses?api-version=v1"},
		{name: "model base + version", modelBase: modelBase, version: version, want: "https://model.cognitiveservices.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "resource", resource: "myres", want: "https://myres.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "resource + version", resource: "myres", version: version, want: "https://myres.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "resource beats model base", resource: "myres", modelBase: modelBase, want: "https://myres.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "resource beats model base + version", resource: "myres", modelBase: modelBase, version: version, want: "https://myres.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "base", base: envBase, want: "https://env.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "base + version", base: envBase, version: version, want: "https://env.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "base beats model base", base: envBase, modelBase: modelBase, want: "https://env.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "base beats model base + version", base: envBase, modelBase: modelBase, version: version, want: "https://env.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "base beats resource", base: envBase, resource: "myres", want: "https://env.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "base beats resource + version", base: envBase, resource: "myres", version: version, want: "https://env.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},
		{name: "base beats all", base: envBase, resource: "myres", modelBase: modelBase, want: "https://env.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "base beats all + version", base: envBase, resource: "myres", modelBase: modelBase, version: version, want: "https://env.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"},

		// Normalization of the base URL.
		{name: "azure host with slash", base: "https://r.openai.azure.com/", want: "https://r.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "azure host /openai", base: "https://r.openai.azure.com/openai", want: "https://r.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "azure host full responses URL", base: "https://r.openai.azure.com/openai/v1/responses?api-version=old", want: "https://r.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "azure host /openai/v1/", base: "https://r.openai.azure.com/openai/v1/", want: "https://r.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "AI Foundry host", base: "https://proj.services.ai.azure.com", want: "https://proj.services.ai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "cognitive services host", base: "https://r.cognitiveservices.azure.com", want: "https://r.cognitiveservices.azure.com/openai/v1/responses?api-version=v1"},
		{name: "gateway keeps its path", base: "https://gw.example.com/azure/openai", want: "https://gw.example.com/azure/openai/responses?api-version=v1"},
		{name: "gateway keeps its query", base: "https://gw.example.com/v1?team=core", version: version, want: "https://gw.example.com/v1/responses?api-version=2025-04-01-preview&team=core"},
		{name: "blank base falls through", base: "   ", resource: "myres", want: "https://myres.openai.azure.com/openai/v1/responses?api-version=v1"},
		{name: "not a URL", base: "env.openai.azure.com", wantErr: `invalid Azure OpenAI base URL "env.openai.azure.com"`},
		{name: "bad scheme", base: "ftp://r.openai.azure.com", wantErr: "invalid Azure OpenAI base URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AzureURL(tc.modelBase, envMap(map[string]string{
				"AZURE_OPENAI_BASE_URL": tc.base, "AZURE_OPENAI_RESOURCE_NAME": tc.resource, "AZURE_OPENAI_API_VERSION": tc.version,
			}))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, %v; want error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v\nwant %q", got, err, tc.want)
			}
		})
	}
}

func TestAzureDeployment(t *testing.T) {
	cases := []struct{ model, m, want string }{
		{"gpt-5", "", "gpt-5"},
		{"gpt-5", "gpt-5=prod-gpt5", "prod-gpt5"},
		{"gpt-5", " gpt-4o = dep4o , gpt-5 = dep5 ", "dep5"},
		{"gpt-5", "gpt-5-mini=dep-mini", "gpt-5"},
		{"gpt-5", "gpt-5,=x,gpt-5=,junk", "gpt-5"},
		{"gpt-5", "gpt-5=a=b", "a=b"},
	}
	for _, tc := range cases {
		if got := AzureDeployment(tc.model, tc.m); got != tc.want {
			t.Errorf("AzureDeployment(%q, %q) = %q, want %q", tc.model, tc.m, got, tc.want)
		}
	}
}

func azureModel(baseURL string) *llm.Model {
	m := testModel(baseURL)
	m.API, m.Provider = AzureAPI, "azure-openai-responses"
	return m
}

func TestAzureOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "from azure"}}})
	defer srv.Close()
	c := NewAzure(envMap(map[string]string{"AZURE_OPENAI_BASE_URL": srv.URL + "/openai/v1",
		"AZURE_OPENAI_API_VERSION": "preview", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5=team-gpt5"}))
	tg := llmtest.Target{Client: c, Model: azureModel}
	msg, _ := tg.Run(t, srv, &llm.Request{APIKey: "azkey", ThinkingLevel: llm.ThinkingHigh, Model: azureModel("")})
	if msg.Text() != "from azure" || msg.API != AzureAPI || msg.Model != "gpt-5" {
		t.Fatalf("%q %s %s %s", msg.Text(), msg.API, msg.Model, msg.ErrorMessage)
	}
	r := srv.Requests()[0]
	if r.Path != "/openai/v1/responses" || r.RawQuery != "api-version=preview" {
		t.Errorf("path %s?%s", r.Path, r.RawQuery)
	}
	if r.Header.Get("api-key") != "azkey" || r.Header.Get("Authorization") != "" {
		t.Errorf("auth headers %v", r.Header)
	}
	if r.Body["model"] != "team-gpt5" {
		t.Errorf("model %v, want the deployment", r.Body["model"])
	}
}

func TestAzureNoBaseURL(t *testing.T) {
	msg := NewAzure(nil).Stream(t.Context(), &llm.Request{Model: azureModel(""), APIKey: "k"}, nil)
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "AZURE_OPENAI_RESOURCE_NAME") {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestAzureFaults(t *testing.T) {
	f := llmtest.OpenAIFaults()
	f.InStreamHas = "server_error: The server is overloaded"
	f.CutAfter = 2500
	f.Garbage = llmtest.Fault{GarbageEvent: "response.output_text.delta", Garbage: `{"type":"response.output_text.delta","delta":`}
	f.EarlyEndHas = "connection closed"
	llmtest.RunFaults(t, llmtest.Target{Client: NewAzure(nil), Model: azureModel}, f)
}
