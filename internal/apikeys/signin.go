package apikeys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/models"
)

// oauthStore is a Models source that saves OAuth credentials itself, so
// its cached auth.json stays current.
type oauthStore interface {
	SaveCredential(provider string, entry json.RawMessage) error
}

// signIns keeps the sign-ins under way, one per provider: /login
// <provider> starts one and shows where to go; it finishes in the
// background (the browser's redirect, or the device approved), or when
// the code is pasted with /login <provider> <code>.
type signIns struct {
	mu      sync.Mutex
	pending map[string]*auth.Flow
	done    map[*auth.Flow]chan struct{}
	errs    map[*auth.Flow]error
}

// pasteWait bounds how long /login <provider> <code> waits for the token
// exchange to finish.
var pasteWait = 60 * time.Second

// subscriptionList is the /login help.
func (r *Keys) subscriptionList() string {
	var b strings.Builder
	b.WriteString("Sign in with a subscription:\n")
	for _, p := range r.o.SignIn.Providers() {
		fmt.Fprintf(&b, "  /login %-20s %s\n", p.ID, p.Name)
	}
	b.WriteString("Or save an API key: /login <provider> <api key>")
	return b.String()
}

// signIn handles /login for a provider with a subscription sign-in. arg is
// what followed the provider: "" or a method/domain starts a sign-in; while
// one is waiting for a paste, anything else is the pasted code. It
// reports handled=false when arg is an API key to save instead.
func (r *Keys) signIn(ctx context.Context, p *auth.Provider, arg string) (text string, handled bool, err error) {
	r.flows.mu.Lock()
	f := r.flows.pending[p.ID]
	r.flows.mu.Unlock()
	opts := auth.LoginOptions{NoBrowser: r.o.NoBrowser}
	switch {
	case arg == "":
	case isMethod(p, arg):
		opts.Method = arg
	case p.ID == "github-copilot" && strings.Contains(arg, ".") && !strings.ContainsAny(arg, " _"):
		opts.Domain = arg
	case f != nil && f.AcceptsInput && looksPasted(arg):
		return r.finish(ctx, p, f, arg)
	default:
		return "", false, nil
	}
	if f != nil {
		// The old flow's callback server must let go of its port first.
		f.Cancel()
		select {
		case <-f.Done():
		case <-time.After(5 * time.Second):
		}
	}
	// The flow outlives this command: it ends with the browser, the
	// device approval or flowTimeout, not with the command's context.
	f, err = p.Start(context.WithoutCancel(ctx), opts)
	if err != nil {
		return "", true, err
	}
	r.flows.mu.Lock()
	if r.flows.pending == nil {
		r.flows.pending = map[string]*auth.Flow{}
	}
	r.flows.pending[p.ID] = f
	r.flows.mu.Unlock()
	go r.complete(p, f)

	var b strings.Builder
	fmt.Fprintf(&b, "Sign in to %s\n%s\n%s", p.Name, f.Instructions, f.URL)
	if f.UserCode != "" {
		fmt.Fprintf(&b, "\nCode: %s", f.UserCode)
	}
	if f.AcceptsInput {
		fmt.Fprintf(&b, "\nTo paste the code or redirect URL: /login %s <code>", p.ID)
	}
	if r.o.OpenURL != nil && f.URL != "" {
		if err := r.o.OpenURL(f.URL); err != nil {
			fmt.Fprintf(&b, "\n(No browser opened: %v. Open the page above.)", err)
		} else {
			b.WriteString("\nThe page was opened in your browser.")
		}
	}
	return b.String(), true, nil
}

// looksPasted tells a pasted authorization answer (a redirect URL,
// code#state, a query, or a bare code) from an API key saved while a
// sign-in waits: keys have well-known prefixes.
func looksPasted(s string) bool {
	if strings.Contains(s, "://") || strings.Contains(s, "#") || strings.Contains(s, "code=") {
		return true
	}
	for _, prefix := range []string{"sk-", "gho_", "ghp_", "ghu_", "github_pat_", "AIza"} {
		if strings.HasPrefix(s, prefix) {
			return false
		}
	}
	return true
}

func isMethod(p *auth.Provider, s string) bool {
	for _, m := range p.Methods {
		if m == s {
			return true
		}
	}
	return false
}

// finish hands a pasted code to the waiting flow and waits for the token.
func (r *Keys) finish(ctx context.Context, p *auth.Provider, f *auth.Flow, code string) (string, bool, error) {
	if err := f.Submit(code); err != nil {
		return "", true, err
	}
	wctx, cancel := context.WithTimeout(ctx, pasteWait)
	defer cancel()
	if _, err := f.Wait(wctx); err != nil {
		return "", true, fmt.Errorf("login %s: %w", p.ID, err)
	}
	// complete saved it (or failed to).
	<-r.saved(f)
	r.flows.mu.Lock()
	err := r.flows.errs[f]
	r.flows.mu.Unlock()
	if err != nil {
		return "", true, err
	}
	return r.signedIn(p), true, nil
}

// saved is closed once complete finished with f.
func (r *Keys) saved(f *auth.Flow) chan struct{} {
	r.flows.mu.Lock()
	defer r.flows.mu.Unlock()
	if r.flows.done == nil {
		r.flows.done = map[*auth.Flow]chan struct{}{}
	}
	ch, ok := r.flows.done[f]
	if !ok {
		ch = make(chan struct{})
		r.flows.done[f] = ch
	}
	return ch
}

// complete waits for the flow, saves the credential and tells the person.
func (r *Keys) complete(p *auth.Provider, f *auth.Flow) {
	done := r.saved(f)
	cred, err := f.Wait(context.Background())
	if err == nil {
		err = r.save(p.ID, cred)
	}
	r.flows.mu.Lock()
	if r.flows.pending[p.ID] == f {
		delete(r.flows.pending, p.ID)
	}
	if r.flows.errs == nil {
		r.flows.errs = map[*auth.Flow]error{}
	}
	r.flows.errs[f] = err
	r.flows.mu.Unlock()
	close(done)
	if r.o.Notify == nil || errors.Is(err, context.Canceled) {
		return
	}
	if err != nil {
		r.o.Notify("login", fmt.Sprintf("Sign-in to %s failed: %v", p.Name, err))
		return
	}
	r.o.Notify("login", r.signedIn(p))
}

func (r *Keys) signedIn(p *auth.Provider) string {
	msg := "Signed in to " + p.Name + "; saved in " + config.Agent{Dir: r.o.AgentDir}.Auth()
	if r.rt.State().Model == nil {
		msg += "\nUse /model to select a model."
	}
	return msg
}

// save writes the credential to auth.json (0600) through the model source
// when it can, so the running registry sees it at once.
func (r *Keys) save(provider string, c *models.Credential) error {
	entry, err := c.MarshalOAuth()
	if err != nil {
		return err
	}
	if s, ok := r.o.Models.(oauthStore); ok {
		return s.SaveCredential(provider, entry)
	}
	if r.o.AgentDir == "" {
		return fmt.Errorf("login %s: no agent directory", provider)
	}
	if err := r.authStore().Set(provider, entry); err != nil {
		return err
	}
	if rl, ok := r.o.Models.(reloader); ok {
		_ = rl.Reload()
	}
	return nil
}
