package responses

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// AzureAPI is the api id of Azure OpenAI's Responses endpoint.
const AzureAPI = "azure-openai-responses"

// azureDefaultAPIVersion is what the original sends when
// AZURE_OPENAI_API_VERSION is not set: the version-less v1 API.
const azureDefaultAPIVersion = "v1"

// Azure streams Azure OpenAI Responses answers: the same wire format as
// OpenAI's /responses, at {base}/responses?api-version=V with the key in
// an api-key header and the deployment name as the model. It reads
// AZURE_OPENAI_BASE_URL, AZURE_OPENAI_RESOURCE_NAME,
// AZURE_OPENAI_API_VERSION and AZURE_OPENAI_DEPLOYMENT_NAME_MAP from its
// provider environment on every request.
type Azure struct {
	getenv func(string) string
}

// NewAzure returns an Azure client reading getenv (nil = empty).
func NewAzure(getenv func(string) string) *Azure {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Azure{getenv: getenv}
}

var _ llm.Client = (*Azure)(nil)

// Stream sends req and streams the answer through emit.
func (a *Azure) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if pe := llm.CheckRequest(req, "api-key", "authorization"); pe != nil {
		return b.Fail(pe)
	}
	endpoint, err := AzureURL(req.Model.BaseURL, a.getenv)
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: err.Error()})
	}
	body := buildBody(req)
	body["model"] = AzureDeployment(req.Model.ID, a.getenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP"))
	resp, perr := llm.PostSSE(ctx, req, endpoint, body, func(h http.Header) {
		if req.APIKey != "" {
			h.Set("api-key", req.APIKey)
		}
	})
	if perr != nil {
		perr.Message = "Azure OpenAI API error: " + perr.Message
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b)
}

// AzureDeployment returns the deployment that serves modelID according to
// AZURE_OPENAI_DEPLOYMENT_NAME_MAP ("model=deployment,model2=deployment2";
// blank and malformed entries are skipped), else modelID itself.
func AzureDeployment(modelID, deploymentMap string) string {
	for entry := range strings.SplitSeq(deploymentMap, ",") {
		id, dep, ok := strings.Cut(strings.TrimSpace(entry), "=")
		if ok && strings.TrimSpace(id) == modelID && strings.TrimSpace(dep) != "" {
			return strings.TrimSpace(dep)
		}
	}
	return modelID
}

// AzureURL builds the request URL: the base is AZURE_OPENAI_BASE_URL, else
// https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1, else
// the model's base URL. An Azure host (*.openai.azure.com,
// *.cognitiveservices.azure.com, *.ai.azure.com) given without a path, or
// with /openai or /openai/v1/responses, gets /openai/v1. Then /responses
// and api-version (AZURE_OPENAI_API_VERSION, default v1) are added.
func AzureURL(modelBase string, getenv func(string) string) (string, error) {
	base := strings.TrimSpace(getenv("AZURE_OPENAI_BASE_URL"))
	if base == "" {
		if r := strings.TrimSpace(getenv("AZURE_OPENAI_RESOURCE_NAME")); r != "" {
			base = "https://" + r + ".openai.azure.com/openai/v1"
		}
	}
	if base == "" {
		base = strings.TrimSpace(modelBase)
	}
	if base == "" {
		return "", fmt.Errorf("Azure OpenAI base URL is required: set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or baseUrl for the model in models.json")
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("invalid Azure OpenAI base URL %q", base)
	}
	host := strings.ToLower(u.Hostname())
	azureHost := strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(host, ".ai.azure.com")
	path := strings.TrimRight(u.Path, "/")
	if azureHost && (path == "" || path == "/openai" || path == "/openai/v1/responses") {
		u.Path, u.RawPath, u.RawQuery = "/openai/v1", "", ""
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/responses"
	u.RawPath = ""
	version := strings.TrimSpace(getenv("AZURE_OPENAI_API_VERSION"))
	if version == "" {
		version = azureDefaultAPIVersion
	}
	q := u.Query()
	q.Set("api-version", version)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
