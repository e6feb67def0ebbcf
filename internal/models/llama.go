package models

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
)

// LlamaProvider is the id of the built-in llama.cpp provider.
const LlamaProvider = llamacpp.Provider

// SourceLocal is the credential source of a llama.cpp server that needs
// no key.
const SourceLocal = "local server (no key needed)"

// LlamaNoKey is the API key sent to a llama.cpp server when LLAMA_API_KEY
// is unset (a server started without --api-key accepts any).
const LlamaNoKey = "no-key"

// LlamaConfig configures the built-in llama.cpp provider.
type LlamaConfig struct {
	// BaseURL is LLAMA_BASE_URL; "" means llamacpp.DefaultURL.
	BaseURL string
	// APIKey is LLAMA_API_KEY (the server's --api-key), "" for none.
	APIKey string
	// Timeout bounds discovery; 0 means llamacpp.DefaultTimeout.
	Timeout time.Duration
}

// llamaState is the discovery of one registry: started at most once,
// in the background, and read without blocking unless a caller names
// the llama.cpp provider.
type llamaState struct {
	cfg     LlamaConfig
	root    string
	urlErr  error
	once    sync.Once
	started atomic.Bool
	done    chan struct{}
	models  []*llm.Model
	skipped []string // known ids that cannot be used now (unloaded ...)
	err     error
}

// EnableLlama turns the llama.cpp provider on. Nothing is contacted until
// StartLlama, WaitLlama or a lookup that names the provider.
func (r *Registry) EnableLlama(cfg LlamaConfig) {
	st := &llamaState{cfg: cfg, done: make(chan struct{})}
	base := cfg.BaseURL
	if base == "" {
		base = llamacpp.DefaultURL
	}
	st.root, st.urlErr = llamacpp.NormalizeURL(base)
	r.mu.Lock()
	r.llama = st
	r.mu.Unlock()
}

func (r *Registry) llamaState() *llamaState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.llama
}

// StartLlama starts model discovery in the background (once).
func (r *Registry) StartLlama() {
	if st := r.llamaState(); st != nil {
		st.once.Do(func() {
			st.started.Store(true)
			go st.discover()
		})
	}
}

// WaitLlama starts discovery if needed and waits for it (bounded by the
// discovery timeout). It returns the discovery error, nil when the
// provider is off or the server answered.
func (r *Registry) WaitLlama(ctx context.Context) error {
	st := r.llamaState()
	if st == nil {
		return nil
	}
	r.StartLlama()
	select {
	case <-st.done:
		return st.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// llamaStarted reports whether discovery runs or ran (never with --offline
// until someone names the provider).
func (r *Registry) llamaStarted() bool {
	st := r.llamaState()
	return st != nil && st.started.Load()
}

// LlamaEnabled reports whether the llama.cpp provider is on.
func (r *Registry) LlamaEnabled() bool { return r.llamaState() != nil }

// LlamaURL is the llama.cpp server root in use ("" when the provider is off).
func (r *Registry) LlamaURL() string {
	if st := r.llamaState(); st != nil {
		return st.root
	}
	return ""
}

// llamaModels returns the discovered models without waiting.
func (r *Registry) llamaModels() []*llm.Model {
	st := r.llamaState()
	if st == nil {
		return nil
	}
	select {
	case <-st.done:
		return st.models
	default:
		return nil
	}
}

func (st *llamaState) discover() {
	defer close(st.done)
	if st.urlErr != nil {
		st.err = st.urlErr
		return
	}
	timeout := st.cfg.Timeout
	if timeout <= 0 {
		timeout = llamacpp.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := &llamacpp.Client{Root: st.root, APIKey: st.cfg.APIKey}
	infos, err := c.Models(ctx)
	if err != nil {
		st.err = err
		return
	}
	for _, info := range infos {
		if !info.Selectable(false) {
			st.skipped = append(st.skipped, info.ID+" ("+info.State()+")")
			continue
		}
		// A template that cannot switch thinking leaves the model a plain
		// chat model; a failed /props read does too, as the original.
		props, _ := c.Props(ctx, info.ID, info.Router)
		st.models = append(st.models, llamaModel(info, st.root, props))
	}
}

// llamaModel turns a server's model into a chat model served through the
// OpenAI-compatible client at <root>/v1.
func llamaModel(info llamacpp.ModelInfo, root string, props llamacpp.Props) *llm.Model {
	ctxWin := info.ContextWindow()
	f, t := false, true
	m := &llm.Model{
		ID: info.ID, Name: info.ID, API: llm.APIOpenAICompletions, Provider: LlamaProvider,
		BaseURL: llamacpp.InferenceURL(root), Input: []string{"text"},
		ContextWindow: ctxWin, MaxTokens: ctxWin,
		Compat: &llm.Compat{
			SupportsStore: &f, SupportsDeveloperRole: &f, SupportsReasoningEffort: &f,
			SupportsUsageInStreaming: &t, SupportsStrictMode: &f, MaxTokensField: "max_tokens",
		},
	}
	if info.SeesImages() {
		m.Input = append(m.Input, "image")
	}
	if props.Reasoning() {
		// Qwen-style templates switch thinking with enable_thinking: on
		// or off is all the server offers, so only off and medium map.
		off, medium := "off", "medium"
		m.Reasoning = true
		m.ThinkingLevelMap = map[string]*string{"off": &off, "minimal": nil, "low": nil, "medium": &medium, "high": nil, "xhigh": nil}
		m.Compat.ThinkingFormat = "qwen-chat-template"
	}
	return m
}

// namesLlama reports whether a --model/--provider pair asks for the
// llama.cpp provider explicitly.
func namesLlama(pattern, provider string) bool {
	return strings.EqualFold(provider, LlamaProvider) ||
		(provider == "" && len(pattern) > len(LlamaProvider) && strings.EqualFold(pattern[:len(LlamaProvider)+1], LlamaProvider+"/"))
}

// llamaResolveError explains why a llama.cpp model is not available:
// the server is down (err), or the model exists but is not loaded.
func (r *Registry) llamaResolveError(pattern string, err error) error {
	if err != nil {
		return err
	}
	st := r.llamaState()
	id := pattern
	if len(id) > len(LlamaProvider) && strings.EqualFold(id[:len(LlamaProvider)+1], LlamaProvider+"/") {
		id = id[len(LlamaProvider)+1:]
	}
	for _, s := range st.skipped {
		if strings.HasPrefix(s, id+" (") {
			return fmt.Errorf("llama.cpp model %q is %s on the router at %s; load it first (llama-server --models-autoload, or load it through the router's API)", id, strings.TrimSuffix(strings.TrimPrefix(s, id+" ("), ")"), st.root)
		}
	}
	if len(st.models) == 0 {
		return fmt.Errorf("llama.cpp server at %s has no loaded model; load one (or start llama-server with -m) and try again", st.root)
	}
	return nil
}

// RefreshLlama reads the server's models again now (after /llama loaded
// or unloaded one), replacing what discovery found.
func (r *Registry) RefreshLlama(ctx context.Context) error {
	old := r.llamaState()
	if old == nil {
		return nil
	}
	st := &llamaState{cfg: old.cfg, root: old.root, urlErr: old.urlErr, done: make(chan struct{})}
	st.once.Do(func() {})
	st.started.Store(true)
	ch := make(chan struct{})
	go func() { st.discover(); close(ch) }()
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	r.llama = st
	r.mu.Unlock()
	return st.err
}

// StoredLlamaURL is the server URL /login llama.cpp stored in auth.json
// ("" when none).
func (r *Registry) StoredLlamaURL() string {
	if r.auth == nil {
		return ""
	}
	c, err := r.auth.Get(LlamaProvider)
	if err != nil || c == nil || c.Type != "api_key" {
		return ""
	}
	return c.Env[config.EnvLlamaBaseURL]
}

// LoginLlama is /login llama.cpp: it checks that a llama.cpp server
// answers at rawURL (with key, "" for none), stores the URL and key in
// auth.json, and switches the provider to that server. It returns the
// normalized URL.
func (r *Registry) LoginLlama(ctx context.Context, rawURL, key string) (string, error) {
	if r.auth == nil {
		return "", fmt.Errorf("login %s: no auth.json configured", LlamaProvider)
	}
	root, err := llamacpp.NormalizeURL(rawURL)
	if err != nil {
		return "", err
	}
	pctx, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
	_, err = (&llamacpp.Client{Root: root, APIKey: key}).Models(pctx)
	cancel()
	if err != nil {
		return "", err
	}
	entry := map[string]any{"type": "api_key", "env": map[string]string{config.EnvLlamaBaseURL: root}}
	if key != "" {
		entry["key"] = key
	}
	raw, err := llm.Marshal(entry)
	if err != nil {
		return "", err
	}
	if err := r.auth.Set(LlamaProvider, raw); err != nil {
		return "", err
	}
	var timeout time.Duration
	if old := r.llamaState(); old != nil {
		timeout = old.cfg.Timeout
	}
	r.EnableLlama(LlamaConfig{BaseURL: root, APIKey: key, Timeout: timeout})
	return root, r.RefreshLlama(ctx)
}
