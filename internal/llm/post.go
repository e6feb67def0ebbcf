package llm

import (
	"bytes"
	"context"
	"net/http"
)

// CheckRequest makes the checks every wire client does before building a
// request: there is a model, and an API key or one of authHeaders (headers
// configured on the model or the request that carry the credentials
// instead; see MissingKey).
func CheckRequest(req *Request, authHeaders ...string) *ProviderError {
	if req.Model == nil {
		return &ProviderError{Kind: ErrInvalidRequest, Message: "no model"}
	}
	return MissingKey(req, authHeaders...)
}

// PostSSE encodes body as JSON and POSTs it to url through Send (retries,
// idle timeout, classified errors), asking for an event stream. headers
// sets the API's own headers (credentials first of all); the configured
// headers of the model and the request are set last (ApplyHeaders), so
// they override any of them. On success the caller reads and closes
// resp.Body.
func PostSSE(ctx context.Context, req *Request, url string, body any, headers func(http.Header)) (*http.Response, *ProviderError) {
	payload, err := Marshal(body)
	if err != nil {
		return nil, &ProviderError{Kind: ErrInvalidRequest, Message: "encode request: " + err.Error()}
	}
	return Send(ctx, req, func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "text/event-stream")
		headers(hr.Header)
		ApplyHeaders(hr.Header, req.Model, req)
		return hr, nil
	})
}

// BearerAuth sets "Authorization: Bearer key", the credential of the OpenAI
// APIs and the many servers that imitate them; nothing when key is empty
// (an Authorization header may be configured instead).
func BearerAuth(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}
