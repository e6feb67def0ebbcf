package app

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/models"
)

// credentialStore is implemented by a Models source that can persist
// credentials itself (the CLI's adapter over models.Registry), so the
// registry's cached auth.json stays current.
type credentialStore interface {
	Login(provider, key string) error
	Logout(provider string) error
}

// reloader is a Models source whose credentials can be re-read.
type reloader interface{ Reload() error }

func (r *Runtime) authStore() *models.AuthStore {
	return models.NewAuthStore(config.Agent{Dir: r.cfg.AgentDir}.Auth())
}

// Login implements /login <provider> <key>: the API key is saved in
// auth.json (mode 0600). It returns the confirmation text.
func (r *Runtime) Login(provider, key string) (string, error) {
	provider, key = strings.TrimSpace(provider), strings.TrimSpace(key)
	if provider == "" || key == "" {
		return "", errors.New("usage: /login <provider> <api key>")
	}
	if cs, ok := r.cfg.Models.(credentialStore); ok {
		if err := cs.Login(provider, key); err != nil {
			return "", fmt.Errorf("login %s: %w", provider, err)
		}
	} else {
		if r.cfg.AgentDir == "" {
			return "", fmt.Errorf("login %s: no agent directory", provider)
		}
		if err := r.authStore().Login(provider, key); err != nil {
			return "", fmt.Errorf("login %s: %w", provider, err)
		}
		if rl, ok := r.cfg.Models.(reloader); ok {
			_ = rl.Reload()
		}
	}
	msg := "Saved API key for " + provider + " in " + config.Agent{Dir: r.cfg.AgentDir}.Auth()
	if _, known := models.Provider(provider); !known {
		msg += "\n(" + provider + " is not a built-in provider; it is used by models.json providers of that id)"
	}
	if r.Model() == nil {
		msg += "\nUse /model to select a model."
	}
	return msg, nil
}

// LoggedInProviders lists the providers with an auth.json credential, for
// the /logout picker.
func (r *Runtime) loggedInProviders() ([]string, error) {
	if r.cfg.AgentDir == "" {
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
func (r *Runtime) Logout(provider string) (string, error) {
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
	if cs, ok := r.cfg.Models.(credentialStore); ok {
		err = cs.Logout(provider)
	} else {
		err = r.authStore().Logout(provider)
		if rl, ok := r.cfg.Models.(reloader); ok && err == nil {
			_ = rl.Reload()
		}
	}
	if err != nil {
		return "", fmt.Errorf("logout %s: %w", provider, err)
	}
	msg := "Removed the auth.json credential of " + provider
	for _, v := range models.EnvVars(provider) {
		if r.cfg.Env.Get(v) != "" {
			msg += "\nNote: " + v + " is still set in the environment"
		}
	}
	return msg, nil
}
