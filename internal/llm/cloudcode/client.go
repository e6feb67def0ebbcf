// Package cloudcode is the wire client of Google's Cloud Code Assist API,
// which the Gemini CLI (google-gemini-cli) and Antigravity
// (google-antigravity) subscriptions reach models through:
// POST {origin}/v1internal:streamGenerateContent?alt=sse with
//
//	{"project": ..., "model": ..., "request": GenerateContentRequest,
//	 "userAgent": ..., "requestId": ..., "requestType": "agent" (Antigravity)}
//
// answered by a Gemini stream whose events wrap each chunk as
// {"response": GenerateContentResponse, "traceId": ...}. The gemini
// package builds the inner request and reads the chunks; this one adds the
// envelope, the endpoints and the headers of each product, and the
// model-specific handling (Claude through Antigravity, the Gemini 3.1 Pro
// aliases).
//
// Credentials come from the sign-in (internal/auth): the access token as
// the request's key and the account's project as the X-Goog-User-Project
// header, which moves into the body (the gateway reads the project there,
// not as a billing override). The token is renewed before each request by
// the model registry.
package cloudcode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/gemini"
)

// API is the api id of the original's lineage for Cloud Code Assist
// models (models.json files may use it); relay's catalog rows keep
// "google-generative-ai", as the original's, and are routed here by
// provider (Handles).
const API = "google-gemini-cli"

// Provider ids.
const (
	GeminiCLI   = "google-gemini-cli"
	Antigravity = "google-antigravity"
)

// DefaultEndpoint is the production Cloud Code Assist origin (the Gemini
// CLI's, and Antigravity's last resort).
const DefaultEndpoint = "https://cloudcode-pa.googleapis.com"

// AntigravityEndpoints are tried in order when the model names none of
// its own; a 403 or 404 moves to the next (the daily channel is not open
// to every account).
var AntigravityEndpoints = []string{"https://daily-cloudcode-pa.googleapis.com", DefaultEndpoint}

// defaultAntigravityVersion is the client version Cloud Code Assist
// expects in Antigravity's user agent (RELAY_AI_ANTIGRAVITY_VERSION
// overrides it).
const defaultAntigravityVersion = "1.21.9"

// projectHeader carries the account's project from the sign-in.
const projectHeader = "X-Goog-User-Project"

// emptyAnswer is the error of a stream that finished without content.
const emptyAnswer = "Cloud Code Assist API returned an empty response"

// Handles reports whether the model's requests go to Cloud Code Assist:
// the subscription providers' models, and any model declaring API.
func Handles(m *llm.Model) bool {
	return m != nil && (m.API == API || m.Provider == GeminiCLI || m.Provider == Antigravity)
}

// Config is what a Client reads.
type Config struct {
	// Getenv returns the provider's environment (RELAY_AI_ANTIGRAVITY_VERSION);
	// nil = empty.
	Getenv func(string) string
}

// Client streams Cloud Code Assist answers; safe for concurrent use.
type Client struct{ cfg Config }

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	return &Client{cfg: cfg}
}

var _ llm.Client = (*Client)(nil)

// flavor is what differs between the two products.
type flavor struct {
	antigravity bool
	endpoints   []string
	headers     map[string]string
}

func (c *Client) flavor(m *llm.Model) flavor {
	base := strings.TrimRight(strings.TrimSpace(m.BaseURL), "/")
	if m.Provider != Antigravity {
		if base == "" {
			base = DefaultEndpoint
		}
		return flavor{endpoints: []string{base}, headers: map[string]string{
			"User-Agent":        "google-cloud-sdk vscode_cloudshelleditor/0.1",
			"X-Goog-Api-Client": "gl-node/22.17.0",
			"Client-Metadata":   `{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}`,
		}}
	}
	return flavor{antigravity: true, endpoints: antigravityEndpoints(base),
		headers: antigravityHeaders(c.cfg.Getenv("RELAY_AI_ANTIGRAVITY_VERSION"))}
}

// antigravityHeaders carry the client version Cloud Code Assist expects
// ("" = the default).
func antigravityHeaders(version string) map[string]string {
	if version = strings.TrimSpace(version); version == "" {
		version = defaultAntigravityVersion
	}
	return map[string]string{"User-Agent": "antigravity/" + version}
}

// antigravityEndpoints are the origins to try for base: the sign-in's (or
// the catalog's) first; a known Antigravity origin keeps the others as
// fallbacks, a foreign one (a proxy, a test server) is the only one.
func antigravityEndpoints(base string) []string {
	switch {
	case base == "":
		return AntigravityEndpoints
	case known(base):
		out := []string{base}
		for _, e := range AntigravityEndpoints {
			if e != base {
				out = append(out, e)
			}
		}
		return out
	}
	return []string{base}
}

func known(base string) bool {
	for _, e := range AntigravityEndpoints {
		if e == base {
			return true
		}
	}
	return false
}

// Stream sends req and streams the answer through emit. It never fails with
// a Go error: failures end the message with stop reason error or aborted.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if req.Model == nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "no model"})
	}
	provider := req.Model.Provider
	if pe := llm.MissingKey(req, "authorization"); pe != nil {
		return b.Fail(pe)
	}
	r, project := withoutProject(req)
	if project == "" {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrAuth, Message: fmt.Sprintf(
			"%s: the sign-in names no Cloud Code Assist project; sign in again: run /login %s", provider, provider)})
	}
	f := c.flavor(req.Model)
	body := envelope(r, project, f.antigravity)
	var resp *http.Response
	var perr *llm.ProviderError
	for i, origin := range f.endpoints {
		resp, perr = llm.PostSSE(ctx, r, origin+"/v1internal:streamGenerateContent?alt=sse", body, func(h http.Header) {
			for k, v := range f.headers {
				h.Set(k, v)
			}
			llm.BearerAuth(h, r.APIKey)
		})
		if perr != nil && (perr.Status == http.StatusForbidden || perr.Status == http.StatusNotFound) && i < len(f.endpoints)-1 {
			continue
		}
		break
	}
	if perr != nil {
		if perr.Status != 0 {
			perr.Message = "Cloud Code Assist API error: " + perr.Message
		}
		return b.Fail(perr)
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return gemini.ReadStream(ctx, resp.Body, b, gemini.StreamOptions{
		Envelope:           true,
		OtherEndsToolCalls: true,
		EmptyError:         emptyAnswer,
	})
}

// withoutProject returns req without the project header (model and
// request headers) and the project it named.
func withoutProject(req *llm.Request) (*llm.Request, string) {
	project := ""
	strip := func(h map[string]string) map[string]string {
		var out map[string]string
		for k, v := range h {
			if strings.EqualFold(k, projectHeader) {
				if v = strings.TrimSpace(v); v != "" {
					project = v
				}
				continue
			}
			if out == nil {
				out = make(map[string]string, len(h))
			}
			out[k] = v
		}
		return out
	}
	m := *req.Model
	m.Headers = strip(req.Model.Headers)
	r := *req
	r.Model = &m
	r.Headers = strip(req.Headers) // the request's value wins over the model's
	return &r, project
}

// gemini31Pro matches Antigravity's Gemini 3.1 Pro effort aliases: the
// gateway serves both through the "low" model id, the effort going in
// thinkingLevel.
var gemini31Pro = regexp.MustCompile(`^gemini-3\.1-pro-(low|high)$`)

// envelope builds the request body.
func envelope(req *llm.Request, project string, antigravity bool) map[string]any {
	opts := gemini.Options{FlatBudgets: true}
	model := req.Model.ID
	if antigravity {
		opts.SystemRole = "user"
		opts.ToolParameters = true
	} else {
		// Claude models take the legacy field, which the API turns into
		// Anthropic's input_schema.
		opts.ToolParameters = strings.HasPrefix(model, "claude-")
	}
	inner := gemini.RequestBody(req, opts)
	if req.SessionID != "" {
		inner["sessionId"] = req.SessionID
	}
	body := map[string]any{"project": project, "model": model, "request": inner}
	if antigravity {
		if m := gemini31Pro.FindStringSubmatch(model); m != nil {
			gen, _ := inner["generationConfig"].(map[string]any)
			if gen == nil {
				gen = map[string]any{}
				inner["generationConfig"] = gen
			}
			tc, _ := gen["thinkingConfig"].(map[string]any)
			if tc == nil {
				tc = map[string]any{}
			}
			tc["includeThoughts"] = true
			tc["thinkingLevel"] = strings.ToUpper(m[1])
			delete(tc, "thinkingBudget")
			gen["thinkingConfig"] = tc
			body["model"] = "gemini-3.1-pro-low"
		}
		body["userAgent"] = "antigravity"
		body["requestType"] = "agent"
		body["requestId"] = uuid()
	} else {
		body["userAgent"] = "relay"
		body["requestId"] = "relay-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + randomBase36(9)
	}
	return body
}

// uuid returns a random (version 4) UUID.
func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func randomBase36(n int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	out := make([]byte, n)
	for i := range out {
		d, err := rand.Int(rand.Reader, big.NewInt(int64(len(digits))))
		if err != nil {
			out[i] = '0'
			continue
		}
		out[i] = digits[d.Int64()]
	}
	return string(out)
}
