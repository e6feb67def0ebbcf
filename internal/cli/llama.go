package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llamarouter"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/settings"
)

// builtinDisabled reports "-builtin:<name>" in the extensions setting
// (the last entry naming it wins).
func builtinDisabled(st *settings.Settings, name string) bool {
	disabled := false
	for _, r := range st.Extensions {
		if n, ok := r.Builtin(); ok && n == name {
			disabled = r.Op() == '-'
		}
	}
	return disabled
}

// enableLlama turns on the built-in llama.cpp provider unless
// "-builtin:llama.cpp" turns it off. Discovery starts in the background
// (never with --offline: then only a model the person names contacts the
// server), so start-up does not wait on a dead server.
func enableLlama(reg *models.Registry, st *settings.Settings, env config.Env) {
	if builtinDisabled(st, models.LlamaProvider) {
		return
	}
	reg.EnableLlama(models.LlamaConfig{BaseURL: llamaBaseURL(reg, env), APIKey: env.LlamaAPIKey})
	if !env.Offline {
		reg.StartLlama()
	}
}

// llamaListNotice waits for discovery before --list-models and says why
// llama.cpp models are missing when the person configured a server.
func llamaListNotice(ctx context.Context, reg *models.Registry, env config.Env, stderr io.Writer) {
	if !reg.LlamaEnabled() {
		return
	}
	if err := reg.WaitLlama(ctx); err != nil && env.LlamaBaseURL != "" {
		fmt.Fprintln(stderr, "Warning:", err)
	}
}

// registerLlama adds /llama (the llama.cpp router) unless
// "-builtin:llama.cpp" turns the provider off.
func registerLlama(reg *models.Registry, st *settings.Settings, env config.Env, agentDir string, seam *hooks.Set, cmds *commands.Registry) error {
	if builtinDisabled(st, models.LlamaProvider) {
		return nil
	}
	base := llamaBaseURL(reg, env)
	if base == "" {
		base = llamacpp.DefaultURL
	}
	root, err := llamacpp.NormalizeURL(base)
	if err != nil {
		// The provider reports the bad URL; /llama has no server to manage.
		return nil
	}
	home, _ := config.HomeDir()
	o := llamarouter.Options{Root: root, APIKey: env.LlamaAPIKey, AgentDir: agentDir, Home: home}
	if reg != nil {
		o.Refresh = reg.RefreshLlama
	}
	_, err = llamarouter.Register(cmds, seam, o)
	return err
}

// llamaBaseURL is the llama.cpp server: the URL /login llama.cpp stored,
// else LLAMA_BASE_URL ("" = the default), as the original resolves it.
func llamaBaseURL(reg *models.Registry, env config.Env) string {
	if reg != nil {
		if u := reg.StoredLlamaURL(); u != "" {
			return u
		}
	}
	return env.LlamaBaseURL
}

// llamaEnv is env with LLAMA_BASE_URL set to the server /login llama.cpp
// stored, for Laya's llama.cpp classifier.
func llamaEnv(reg *models.Registry, env config.Env) config.Env {
	if u := llamaBaseURL(reg, env); u != "" && u != env.LlamaBaseURL {
		return env.With(config.EnvLlamaBaseURL, u)
	}
	return env
}
