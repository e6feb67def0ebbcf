package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/models"
)

// maxBody bounds every answer an authorization server gives.
const maxBody = 1 << 20

// call sends one request and returns the status and (bounded) body.
func call(ctx context.Context, hc *http.Client, method, u string, body io.Reader, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("read %s: %w", redact(u), err)
	}
	if len(b) > maxBody {
		return resp.StatusCode, nil, fmt.Errorf("%s: answer larger than %d bytes", redact(u), maxBody)
	}
	return resp.StatusCode, b, nil
}

func postForm(ctx context.Context, hc *http.Client, u string, form url.Values, hdr map[string]string) (int, []byte, error) {
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
	for k, v := range hdr {
		h[k] = v
	}
	return call(ctx, hc, "POST", u, strings.NewReader(form.Encode()), h)
}

func postJSON(ctx context.Context, hc *http.Client, u string, v any, hdr map[string]string) (int, []byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, nil, err
	}
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json"}
	for k, v := range hdr {
		h[k] = v
	}
	return call(ctx, hc, "POST", u, bytes.NewReader(b), h)
}

// redact drops the query of a URL for messages.
func redact(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// tokenAnswer is an OAuth token endpoint's answer.
type tokenAnswer struct {
	AccessToken  string          `json:"access_token"`
	RefreshToken string          `json:"refresh_token"`
	ExpiresIn    json.RawMessage `json:"expires_in"`
	Error        json.RawMessage `json:"error"`
	Description  string          `json:"error_description"`
}

// expiresIn reads expires_in (a number, or a numeric string some servers
// send); ok is false when it is missing or not positive.
func (t *tokenAnswer) expiresIn() (float64, bool) {
	var f float64
	if err := json.Unmarshal(t.ExpiresIn, &f); err != nil {
		var s string
		if json.Unmarshal(t.ExpiresIn, &s) != nil {
			return 0, false
		}
		if _, err := fmt.Sscan(s, &f); err != nil {
			return 0, false
		}
	}
	return f, f > 0
}

// errorCode is the OAuth error code of an answer ("error" as a string, or
// {"error":{"code"|"type"}}).
func errorCode(body []byte) string {
	var t tokenAnswer
	if json.Unmarshal(body, &t) != nil || len(t.Error) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(t.Error, &s) == nil {
		return s
	}
	var o struct{ Code, Type string }
	if json.Unmarshal(t.Error, &o) == nil {
		if o.Code != "" {
			return o.Code
		}
		return o.Type
	}
	return ""
}

// readToken checks a token endpoint answer: the HTTP status, the JSON and
// the access token. A refused grant (invalid_grant and kin, or 401) wraps
// models.ErrRevoked. needRefresh says the answer must carry a refresh
// token.
func readToken(name, op string, status int, body []byte, needRefresh bool) (*tokenAnswer, error) {
	if status != http.StatusOK {
		code := errorCode(body)
		switch {
		case code == "invalid_grant" || code == "invalid_token" || code == "refresh_token_expired" ||
			code == "refresh_token_reused" || code == "refresh_token_invalidated" || status == http.StatusUnauthorized:
			return nil, fmt.Errorf("%s token %s refused (%d %s): %w", name, op, status, firstNonEmpty(code, "unauthorized"), models.ErrRevoked)
		}
		return nil, fmt.Errorf("%s token %s failed (%d): %s", name, op, status, snippet(body))
	}
	var t tokenAnswer
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("%s token %s: the answer is not JSON: %s", name, op, snippet(body))
	}
	if t.AccessToken == "" || (needRefresh && t.RefreshToken == "") {
		return nil, fmt.Errorf("%s token %s: the answer lacks access_token or refresh_token", name, op)
	}
	return &t, nil
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// snippet is a short, single-line excerpt of a body for messages.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		s = "(empty)"
	}
	return s
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// parseAuthInput reads what a person pastes: the redirect URL, a
// "code#state" pair, a query string, or the bare code.
func parseAuthInput(in string) (code, state, errCode string) {
	v := strings.TrimSpace(in)
	if v == "" {
		return "", "", ""
	}
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		q := u.Query()
		return q.Get("code"), q.Get("state"), q.Get("error")
	}
	if c, s, ok := strings.Cut(v, "#"); ok {
		return c, s, ""
	}
	if strings.Contains(v, "code=") || strings.Contains(v, "error=") {
		q, err := url.ParseQuery(strings.TrimPrefix(v, "?"))
		if err == nil {
			return q.Get("code"), q.Get("state"), q.Get("error")
		}
	}
	return v, "", ""
}

// callbackHost is where loopback servers listen (RELAY_OAUTH_CALLBACK_HOST,
// default 127.0.0.1), as in the original.
func callbackHost(c *Config) string {
	if h := c.Getenv("RELAY_OAUTH_CALLBACK_HOST"); h != "" {
		return h
	}
	return "127.0.0.1"
}

func itoa(n int) string { return fmt.Sprint(n) }

// wrapNet names the step a network failure interrupted.
func wrapNet(step string, err error) error {
	return fmt.Errorf("%s: %w (network)", step, err)
}

func errMissing(name, op, field string) error {
	return fmt.Errorf("%s token %s: the answer lacks %s", name, op, field)
}
