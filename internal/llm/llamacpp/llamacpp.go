// Package llamacpp talks to llama.cpp's llama-server for what the
// OpenAI-compatible chat client does not cover: which models the server
// (or its router) offers, in which state, and with which context window.
// Chat requests themselves go through internal/llm/openai at <root>/v1.
package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Provider is the provider id of llama.cpp models.
const Provider = "llama.cpp"

// DefaultURL is where llama-server listens unless LLAMA_BASE_URL says
// otherwise.
const DefaultURL = "http://127.0.0.1:8080"

// DefaultContextWindow is used when the server reports no context size.
const DefaultContextWindow = 128000

// DefaultTimeout bounds one discovery round: a local server answers in
// milliseconds, and a dead or wedged one must not hold up start-up.
const DefaultTimeout = 3 * time.Second

// maxBody bounds a /models or /props answer; a router with hundreds of
// models stays far below it.
const maxBody = 4 << 20

// Status values of the router's /models list.
const (
	StatusLoaded   = "loaded"
	StatusLoading  = "loading"
	StatusUnloaded = "unloaded"
	StatusSleeping = "sleeping"
)

// ModelInfo is one entry of /models (router mode) or /v1/models (single
// model mode, where every entry is loaded and has no status).
type ModelInfo struct {
	ID     string `json:"id"`
	Source string `json:"source,omitempty"`
	Status struct {
		Value    string   `json:"value"`
		Args     []string `json:"args,omitempty"`
		Failed   bool     `json:"failed,omitempty"`
		ExitCode *int     `json:"exit_code,omitempty"`
		// Progress is per file while downloading.
		Progress map[string]struct {
			Done  int64 `json:"done"`
			Total int64 `json:"total"`
		} `json:"progress,omitempty"`
	} `json:"status"`
	Meta *struct {
		NCtx      int `json:"n_ctx,omitempty"`
		NCtxTrain int `json:"n_ctx_train,omitempty"`
	} `json:"meta,omitempty"`
	Architecture *struct {
		InputModalities []string `json:"input_modalities,omitempty"`
	} `json:"architecture,omitempty"`
	// Router is true when the entry came from a router's model list.
	Router bool `json:"-"`
}

// Selectable reports whether a chat request can use the model now: loaded
// and sleeping models can (a request wakes a sleeping one); an unloaded
// one only when the router loads presets on first use (autoload) and its
// last load did not fail.
func (m ModelInfo) Selectable(autoload bool) bool {
	switch m.State() {
	case StatusLoaded, StatusSleeping:
		return true
	case StatusUnloaded:
		return autoload && !m.Status.Failed && m.Source == "preset"
	}
	return false
}

// State is the status value, "loaded" for single-model servers.
func (m ModelInfo) State() string {
	if !m.Router && m.Status.Value == "" {
		return StatusLoaded
	}
	return m.Status.Value
}

// ContextWindow is the model's context: what the running instance reports
// (meta.n_ctx), else the -c/--ctx-size/-ctx of its command line, else the
// trained length, else DefaultContextWindow.
func (m ModelInfo) ContextWindow() int {
	if m.Meta != nil && m.Meta.NCtx > 0 {
		return m.Meta.NCtx
	}
	args := m.Status.Args
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-c", "--ctx-size", "-ctx":
			if n, err := strconv.Atoi(strings.TrimSpace(args[i+1])); err == nil && n > 0 {
				return n
			}
		}
	}
	if m.Meta != nil && m.Meta.NCtxTrain > 0 {
		return m.Meta.NCtxTrain
	}
	return DefaultContextWindow
}

// SeesImages reports an image input modality (a multimodal projector).
func (m ModelInfo) SeesImages() bool {
	if m.Architecture == nil {
		return false
	}
	for _, x := range m.Architecture.InputModalities {
		if x == "image" {
			return true
		}
	}
	return false
}

// NormalizeURL returns the server root: http(s) only, no credentials,
// query or fragment, trailing slashes and one trailing "/v1" removed.
func NormalizeURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("llama.cpp server URL %q: not an http(s) URL with a host", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("llama.cpp server URL %q: must use http or https", raw)
	}
	if u.User != nil {
		// Said without repeating the URL: it would print the password.
		return "", errors.New("llama.cpp server URL must not include credentials (use LLAMA_API_KEY)")
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path, u.RawPath = p, ""
	return strings.TrimRight(u.String(), "/"), nil
}

// InferenceURL is the OpenAI-compatible base URL of a server root.
func InferenceURL(root string) string { return root + "/v1" }

// Client reads a server's model list.
type Client struct {
	// Root is the normalized server URL (NormalizeURL).
	Root   string
	APIKey string
	// HTTP is the client to use; nil means a private one.
	HTTP *http.Client
}

// DownError says the server could not be reached at all.
type DownError struct {
	Root string
	Err  error
}

func (e *DownError) Error() string {
	return fmt.Sprintf("llama.cpp server at %s is not reachable (%v); start llama-server or set LLAMA_BASE_URL", e.Root, e.Err)
}

func (e *DownError) Unwrap() error { return e.Err }

// Models lists the server's models: the router's /models list with each
// model's state, or, for a single-model server that has no router list,
// /v1/models.
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	var list struct {
		Data []ModelInfo `json:"data"`
	}
	status, err := c.getJSON(ctx, "/models", &list)
	router := err == nil
	if err != nil {
		var down *DownError
		if errors.As(err, &down) || ctx.Err() != nil || (status != http.StatusNotFound && status != http.StatusMethodNotAllowed) {
			return nil, err
		}
		if _, err := c.getJSON(ctx, "/v1/models", &list); err != nil {
			return nil, err
		}
	}
	out := make([]ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		// A router lists status for each model; single-model servers
		// answer /models too, without it.
		m.Router = router && m.Status.Value != ""
		out = append(out, m)
	}
	return out, nil
}

// Props is what GET /props says about a model (router: ?model=<id>).
type Props struct {
	ChatTemplate string `json:"chat_template"`
}

// Reasoning reports a chat template that can switch thinking on and off
// (Qwen3-style enable_thinking).
func (p Props) Reasoning() bool { return strings.Contains(p.ChatTemplate, "enable_thinking") }

// Props reads /props of one model; router is whether the model came from
// a router list (the router needs the model named).
func (c *Client) Props(ctx context.Context, model string, router bool) (Props, error) {
	path := "/props"
	if router {
		path += "?model=" + url.QueryEscape(model)
	}
	var p Props
	_, err := c.getJSON(ctx, path, &p)
	return p, err
}

// getJSON GETs root+path into v. It returns the HTTP status (0 when there
// was no answer) and an error naming the URL.
func (c *Client) getJSON(ctx context.Context, path string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Root+path, nil)
	if err != nil {
		return 0, fmt.Errorf("llama.cpp %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, &DownError{Root: c.Root, Err: fmt.Errorf("no answer within the discovery timeout: %w", ctx.Err())}
		}
		return 0, &DownError{Root: c.Root, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("llama.cpp GET %s%s: reading the answer: %w", c.Root, path, err)
	}
	if len(body) > maxBody {
		return resp.StatusCode, fmt.Errorf("llama.cpp GET %s%s: answer larger than %d bytes", c.Root, path, maxBody)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(body))
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized {
			hint = " (set LLAMA_API_KEY to the server's --api-key)"
		}
		return resp.StatusCode, fmt.Errorf("llama.cpp GET %s%s: %s: %s%s", c.Root, path, resp.Status, msg, hint)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("llama.cpp GET %s%s: not the expected JSON: %w", c.Root, path, err)
	}
	return resp.StatusCode, nil
}

// The router's model management: POST /models/load and /models/unload
// {"model"} start a change that /models then reports; POST /models
// {"model": "owner/repo[:quant]"} has the router download a model from
// Hugging Face (status "downloading" with per-file progress).

// StatusDownloading is the router's state of a model being downloaded.
const StatusDownloading = "downloading"

// Load asks the router to load model.
func (c *Client) Load(ctx context.Context, model string) error {
	return c.postJSON(ctx, "/models/load", model)
}

// Unload asks the router to unload model.
func (c *Client) Unload(ctx context.Context, model string) error {
	return c.postJSON(ctx, "/models/unload", model)
}

// Download asks the router to download ref ("owner/repo[:quant]").
func (c *Client) Download(ctx context.Context, ref string) error {
	return c.postJSON(ctx, "/models", ref)
}

// RouterModels is the router's /models list (reload re-reads the models
// directory); unlike Models it fails for a server that is not a router.
func (c *Client) RouterModels(ctx context.Context, reload bool) ([]ModelInfo, error) {
	path := "/models"
	if reload {
		path += "?reload=1"
	}
	var list struct {
		Data []ModelInfo `json:"data"`
	}
	status, err := c.getJSON(ctx, path, &list)
	if err != nil {
		if status == http.StatusNotFound {
			return nil, fmt.Errorf("the llama.cpp server at %s is not a router (start llama-server without -m): %w", c.Root, err)
		}
		return nil, err
	}
	out := list.Data[:0]
	for _, m := range list.Data {
		if m.ID != "" {
			m.Router = true
			out = append(out, m)
		}
	}
	return out, nil
}

// DownloadProgress sums a downloading model's per-file progress.
func (m ModelInfo) DownloadProgress() (done, total int64) {
	for _, f := range m.Status.Progress {
		done += f.Done
		total += f.Total
	}
	return done, total
}

func (c *Client) postJSON(ctx context.Context, path, model string) error {
	b, _ := json.Marshal(map[string]string{"model": model})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Root+path, strings.NewReader(string(b)))
	if err != nil {
		return fmt.Errorf("llama.cpp %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &DownError{Root: c.Root, Err: err}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("llama.cpp POST %s%s %s: %s", c.Root, path, model, errorText(body))
	}
	return nil
}
