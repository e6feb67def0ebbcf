// Package apikeys implements /login and /logout: API keys saved in (and
// removed from) auth.json, through the model source when it stores
// credentials itself so its cached copy stays current.
package apikeys

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
	"github.com/relay-agent/relay/internal/models"
)

// credentialStore is implemented by a Models source that can persist
// credentials itself (the CLI's adapter over models.Registry), so the
// registry's cached auth.json stays current.
type credentialStore interface {
	Login(provider, key string) error
	Logout(provider string) error
}

// llamaLogin is a Models source that can point the llama.cpp provider at
// a server and store it (/login llama.cpp <url> [key]).
type llamaLogin interface {
	LoginLlama(ctx context.Context, url, key string) (string, error)
}

// reloader is a Models source whose credentials can be re-read.
type reloader interface{ Reload() error }

// Runtime is what the commands need from the runtime core.
type Runtime interface {
	// Model is nil until one is selected (the login hint says /model).
	State() app.State
}

// Options locate the credentials.
type Options struct {
	AgentDir string
	// Env is the environment read once by the CLI (logout notes keys
	// still set there).
	Env config.Env
	// Models is the runtime's model source; when it stores credentials
	// itself (Login/Logout methods) they go through it.
	Models app.Models
	// SignIn are the subscription sign-ins /login offers (nil = API keys
	// only).
	SignIn *auth.Set
	// NoBrowser picks the sign-in methods that work when the browser is on
	// another machine (pasted code, device code).
	NoBrowser bool
	// Notify tells the person how a sign-in finishing in the background
	// went (the hook set's notices).
	Notify func(source, text string)
	// OpenURL opens a sign-in page in the browser without waiting for it
	// (nil = never: no terminal, the browser elsewhere, tests). The page
	// is printed either way.
	OpenURL func(page string) error
}

// Keys is the registered command pair.
type Keys struct {
	rt    Runtime
	o     Options
	flows signIns
}

// Register adds /login and /logout to cmds.
func Register(rt Runtime, cmds *commands.Registry, o Options) error {
	k := &Keys{rt: rt, o: o}
	text := func(f func(args string) (string, error)) commands.Handler {
		return func(_ context.Context, args string) (commands.Output, error) {
			t, err := f(args)
			return commands.Output{Text: t}, err
		}
	}
	for _, c := range []commands.Command{
		{Name: "login", Description: "Add an API key or sign in", Run: func(ctx context.Context, arg string) (commands.Output, error) {
			provider, key, _ := strings.Cut(strings.TrimSpace(arg), " ")
			provider, key = strings.TrimSpace(provider), strings.TrimSpace(key)
			if provider == "" && k.o.SignIn != nil {
				return commands.Output{Text: k.subscriptionList()}, nil
			}
			if p := k.o.SignIn.Get(provider); p != nil {
				t, handled, err := k.signIn(ctx, p, key)
				if handled {
					return commands.Output{Text: t}, err
				}
			}
			var t string
			var err error
			if provider == models.LlamaProvider {
				t, err = k.LoginLlama(ctx, key)
			} else {
				t, err = k.Login(provider, key)
			}
			return commands.Output{Text: t}, err
		}},
		{Name: "logout", Description: "Remove stored credentials", Run: text(k.Logout)},
	} {
		c.Source = commands.Builtin
		if err := cmds.Register(c); err != nil {
			return fmt.Errorf("api key commands: %w", err)
		}
	}
	return nil
}

func (r *Keys) authStore() *models.AuthStore {
	return models.NewAuthStore(config.Agent{Dir: r.o.AgentDir}.Auth())
}

// Login implements /login <provider> <key>: the API key is saved in
// auth.json (mode 0600). It returns the confirmation text.
func (r *Keys) Login(provider, key string) (string, error) {
	provider, key = strings.TrimSpace(provider), strings.TrimSpace(key)
	if provider == "" || key == "" {
		return "", errors.New("usage: /login <provider> <api key>")
	}
	if cs, ok := r.o.Models.(credentialStore); ok {
		if err := cs.Login(provider, key); err != nil {
			return "", fmt.Errorf("login %s: %w", provider, err)
		}
	} else {
		if r.o.AgentDir == "" {
			return "", fmt.Errorf("login %s: no agent directory", provider)
		}
		if err := r.authStore().Login(provider, key); err != nil {
			return "", fmt.Errorf("login %s: %w", provider, err)
		}
		if rl, ok := r.o.Models.(reloader); ok {
			_ = rl.Reload()
		}
	}
	msg := "Saved API key for " + provider + " in " + config.Agent{Dir: r.o.AgentDir}.Auth()
	if _, known := models.Provider(provider); !known {
		msg += "\n(" + provider + " is not a built-in provider; it is used by models.json providers of that id)"
	}
	if r.rt.State().Model == nil {
		msg += "\nUse /model to select a model."
	}
	return msg, nil
}

// LoginLlama is /login llama.cpp [url] [api key]: it checks the server
// answers, stores its URL (and key) in auth.json, and points the llama.cpp
// provider at it. The URL defaults to LLAMA_BASE_URL, else llama.cpp's.
func (r *Keys) LoginLlama(ctx context.Context, args string) (string, error) {
	fields := strings.Fields(args)
	if len(fields) > 2 {
		return "", errors.New("usage: /login llama.cpp [server url] [api key]")
	}
	url := r.o.Env.LlamaBaseURL
	if url == "" {
		url = llamacpp.DefaultURL
	}
	key := ""
	if len(fields) > 0 {
		url = fields[0]
	}
	if len(fields) > 1 {
		key = fields[1]
	}
	ll, ok := r.o.Models.(llamaLogin)
	if !ok {
		return "", fmt.Errorf("login %s: this model source cannot store a llama.cpp server", models.LlamaProvider)
	}
	root, err := ll.LoginLlama(ctx, url, key)
	if err != nil {
		return "", fmt.Errorf("login %s: %w", models.LlamaProvider, err)
	}
	msg := "Saved the llama.cpp server " + root + " in " + config.Agent{Dir: r.o.AgentDir}.Auth()
	if key != "" {
		msg += " with its API key"
	}
	return msg + ".\n/llama loads a model on a router; /model selects a loaded one. /llama and Laya's classifier use the new server from the next start.", nil
}

// LoggedInProviders lists the providers with an auth.json credential, for
// the /logout picker.
func (r *Keys) loggedInProviders() ([]string, error) {
	if r.o.AgentDir == "" {
		return nil, nil
	}
	ps, err := r.authStore().Providers()
	if err != nil {
		return nil, err
	}
	sort.Strings(ps)
	return ps, nil
}

// Logout implements /logout [provider]: it removes the provider's
// auth.json credential. Without a provider it fails with the list of
// logged-in providers (the TUI shows a picker instead). Environment
// variables and models.json keys are not touched.
func (r *Keys) Logout(provider string) (string, error) {
	provider = strings.TrimSpace(provider)
	ps, err := r.loggedInProviders()
	if err != nil {
		return "", fmt.Errorf("logout: %w", err)
	}
	if provider == "" {
		if len(ps) == 0 {
			return "", errors.New("No providers are logged in (auth.json has no credentials).")
		}
		return "", fmt.Errorf("usage: /logout <provider> (logged in: %s)", strings.Join(ps, ", "))
	}
	found := false
	for _, p := range ps {
		found = found || p == provider
	}
	if !found {
		return "", fmt.Errorf("%s has no credential in auth.json", provider)
	}
	if cs, ok := r.o.Models.(credentialStore); ok {
		err = cs.Logout(provider)
	} else {
		err = r.authStore().Logout(provider)
		if rl, ok := r.o.Models.(reloader); ok && err == nil {
			_ = rl.Reload()
		}
	}
	if err != nil {
		return "", fmt.Errorf("logout %s: %w", provider, err)
	}
	msg := "Removed the auth.json credential of " + provider
	for _, v := range models.EnvVars(provider) {
		if r.o.Env.Get(v) != "" {
			msg += "\nNote: " + v + " is still set in the environment"
		}
	}
	return msg, nil
}
