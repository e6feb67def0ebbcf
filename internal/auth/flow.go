package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// Flow is a sign-in under way: what to show the person, and the result
// once the browser came back, the code was pasted or the device was
// approved.
type Flow struct {
	Provider string
	// URL is the page to open (authorization or device verification).
	URL string
	// UserCode is the code to enter on URL (device flows).
	UserCode string
	// Instructions say what to do, in one or two sentences.
	Instructions string
	// AcceptsInput is true when a pasted code or redirect URL finishes the
	// flow (Submit).
	AcceptsInput bool

	input  chan string
	done   chan struct{}
	cancel context.CancelFunc
	once   sync.Once
	cred   *models.Credential
	err    error
}

func newFlow(ctx context.Context, provider string) (*Flow, context.Context) {
	ctx, cancel := context.WithTimeout(ctx, flowTimeout)
	return &Flow{Provider: provider, input: make(chan string, 1), done: make(chan struct{}), cancel: cancel}, ctx
}

// flowTimeout bounds a whole sign-in (the person's time in the browser).
var flowTimeout = 15 * time.Minute

func (f *Flow) run(fn func() (*models.Credential, error)) {
	go func() {
		defer f.cancel()
		cred, err := fn()
		f.cred, f.err = cred, err
		close(f.done)
	}()
}

// Submit hands the flow what the person pasted: the final redirect URL or
// the authorization code.
func (f *Flow) Submit(s string) error {
	if !f.AcceptsInput {
		return errors.New(f.Provider + ": this sign-in finishes in the browser; nothing to paste")
	}
	select {
	case f.input <- s:
		return nil
	case <-f.done:
		return errors.New(f.Provider + ": the sign-in already finished")
	default:
		return errors.New(f.Provider + ": a code was already pasted")
	}
}

// Wait returns the credential once the flow finished.
func (f *Flow) Wait(ctx context.Context) (*models.Credential, error) {
	select {
	case <-f.done:
		return f.cred, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Done is closed when the flow finished.
func (f *Flow) Done() <-chan struct{} { return f.done }

// Cancel stops the flow (its callback server closes).
func (f *Flow) Cancel() { f.once.Do(f.cancel) }

// callback is the loopback server an authorization server redirects to.
type callback struct {
	srv      *http.Server
	redirect string
	got      chan callbackResult
}

type callbackResult struct{ code, err string }

// startCallback listens on host:port (port 0 = any, for tests) and serves
// path. redirectHost is the host in the redirect URI (the original
// registers "localhost"). A port already in use is not an error the
// person can fix here: the flow goes on with pasting only (nil callback).
func startCallback(host string, port int, redirectHost, path, state string) *callback {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil
	}
	actual := ln.Addr().(*net.TCPAddr).Port
	cb := &callback{got: make(chan callbackResult, 1),
		redirect: "http://" + net.JoinHostPort(redirectHost, strconv.Itoa(actual)) + path}
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			w.WriteHeader(http.StatusBadRequest)
			page(w, "Sign-in failed", "The answer does not belong to this sign-in (state mismatch). Start again from relay.")
			return
		}
		res := callbackResult{code: q.Get("code"), err: q.Get("error")}
		if res.err == "" && res.code == "" {
			w.WriteHeader(http.StatusBadRequest)
			page(w, "Sign-in failed", "No authorization code in the answer.")
			return
		}
		if res.err != "" {
			page(w, "Sign-in cancelled", "Authorization was denied ("+res.err+"). You can close this tab.")
		} else {
			page(w, "Signed in", "You can close this tab and return to relay.")
		}
		select {
		case cb.got <- res:
		default:
		}
	})
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb
}

func (cb *callback) close() {
	if cb != nil {
		_ = cb.srv.Close()
	}
}

func page(w http.ResponseWriter, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1><p>%s</p>", html.EscapeString(title), html.EscapeString(title), html.EscapeString(msg))
}

// waitCode waits for the browser's redirect or a pasted answer and
// returns the authorization code. wantState is checked when the pasted
// text carries one.
func waitCode(ctx context.Context, name string, cb *callback, input <-chan string, wantState string) (code, state string, err error) {
	var got <-chan callbackResult
	if cb != nil {
		got = cb.got
	}
	select {
	case r := <-got:
		if r.err != "" {
			return "", "", fmt.Errorf("%s sign-in was denied (%s)", name, r.err)
		}
		return r.code, wantState, nil
	case s := <-input:
		c, st, e := parseAuthInput(s)
		if e != "" {
			return "", "", fmt.Errorf("%s sign-in was denied (%s)", name, e)
		}
		if st != "" && st != wantState {
			return "", "", fmt.Errorf("%s sign-in: the pasted answer belongs to another sign-in (state mismatch)", name)
		}
		if c == "" {
			return "", "", fmt.Errorf("%s sign-in: no authorization code in what was pasted", name)
		}
		return c, firstNonEmpty(st, wantState), nil
	case <-ctx.Done():
		return "", "", fmt.Errorf("%s sign-in: %w", name, ctx.Err())
	}
}
