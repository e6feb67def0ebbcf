package llm

import "strings"

// AmbientKey is the API key the model registry reports for providers that
// authenticate with cloud credentials (AWS, Google ADC) rather than a key:
// their wire clients know not to send it.
const AmbientKey = "<authenticated>"

// MissingKey returns the "No API key for provider: <p>" error when req has
// no API key and none of authHeaders (e.g. "authorization", "x-goog-api-key")
// is configured on the model or the request: some gateways authenticate by
// a custom header instead of a key. It returns nil when the request can go.
func MissingKey(req *Request, authHeaders ...string) *ProviderError {
	if req.APIKey != "" {
		return nil
	}
	for _, name := range authHeaders {
		if hasHeader(req.Headers, name) || (req.Model != nil && hasHeader(req.Model.Headers, name)) {
			return nil
		}
	}
	p := ""
	if req.Model != nil {
		p = req.Model.Provider
	}
	return &ProviderError{Kind: ErrAuth, Message: "No API key for provider: " + p}
}

func hasHeader(h map[string]string, name string) bool {
	for k, v := range h {
		if strings.EqualFold(k, name) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}
