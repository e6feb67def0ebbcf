package cloudcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// maxCatalogBody bounds Antigravity's model list.
const maxCatalogBody = 4 << 20

// Account is a signed-in Antigravity account, as the sign-in stored it.
type Account struct {
	Access  string // the access token
	Project string // the Cloud Code Assist project
	BaseURL string // the origin that answered the sign-in ("" = try them all)
	// Version is RELAY_AI_ANTIGRAVITY_VERSION ("" = the default).
	Version string
}

// remoteModel is one entry of fetchAvailableModels.
type remoteModel struct {
	DisplayName      string `json:"displayName"`
	IsInternal       bool   `json:"isInternal"`
	SupportsImages   *bool  `json:"supportsImages"`
	SupportsThinking *bool  `json:"supportsThinking"`
	MaxInputTokens   int    `json:"maxInputTokens"`
	MaxOutputTokens  int    `json:"maxOutputTokens"`
}

// thinkingByName is the original's guess when the account does not say.
var thinkingByName = regexp.MustCompile(`gemini|thinking|gpt-oss`)

// AntigravityModels asks Antigravity which models the account may use
// (POST {origin}/v1internal:fetchAvailableModels with the project, as the
// original discovers them) and returns them as catalog entries, sorted by
// id: the JSON of models of provider google-antigravity. Internal models
// and models without a display name are left out; what the answer does not
// say is filled the original's way (thinking for gemini, *thinking* and
// gpt-oss ids; images unless refused or gpt-oss; 1048576 tokens of context
// for Gemini, 200000 for the others; 32768 out).
func AntigravityModels(ctx context.Context, hc *http.Client, a Account) ([]byte, error) {
	if a.Access == "" || a.Project == "" {
		return nil, errors.New("log in with /login google-antigravity to discover models")
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	endpoints := antigravityEndpoints(strings.TrimRight(strings.TrimSpace(a.BaseURL), "/"))
	headers := antigravityHeaders(a.Version)
	payload, _ := json.Marshal(map[string]string{"project": a.Project})
	var body []byte
	for i, origin := range endpoints {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin+"/v1internal:fetchAvailableModels", bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+a.Access)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("Antigravity fetchAvailableModels: %w", err)
		}
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxCatalogBody+1))
		resp.Body.Close()
		if (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) && i < len(endpoints)-1 {
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("Antigravity fetchAvailableModels failed (HTTP %d)", resp.StatusCode)
		}
		if err != nil {
			return nil, fmt.Errorf("Antigravity fetchAvailableModels: %w", err)
		}
		if len(body) > maxCatalogBody {
			return nil, fmt.Errorf("Antigravity model catalog is larger than %d bytes", maxCatalogBody)
		}
		break
	}
	var answer struct {
		Models map[string]*remoteModel `json:"models"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Models == nil {
		return nil, errors.New("Antigravity returned an invalid model catalog")
	}
	ids := make([]string, 0, len(answer.Models))
	for id, info := range answer.Models {
		if info != nil && !info.IsInternal && strings.TrimSpace(info.DisplayName) != "" && id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		info := answer.Models[id]
		reasoning := thinkingByName.MatchString(id)
		if info.SupportsThinking != nil {
			reasoning = *info.SupportsThinking
		}
		input := []string{"text", "image"}
		if (info.SupportsImages != nil && !*info.SupportsImages) || strings.HasPrefix(id, "gpt-oss") {
			input = []string{"text"}
		}
		window := info.MaxInputTokens
		if window <= 0 {
			window = 200_000
			if strings.HasPrefix(id, "gemini") {
				window = 1_048_576
			}
		}
		maxOut := info.MaxOutputTokens
		if maxOut <= 0 {
			maxOut = 32_768
		}
		out = append(out, map[string]any{"id": id, "name": info.DisplayName, "provider": Antigravity, "api": llm.APIGoogleGenerativeAI,
			"baseUrl": "", "reasoning": reasoning, "input": input,
			"cost":          map[string]float64{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
			"contextWindow": window, "maxTokens": maxOut})
	}
	return json.Marshal(out)
}
