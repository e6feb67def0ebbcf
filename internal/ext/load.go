package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/relay-agent/relay/internal/hooks"
)

// readyCh is closed when every load started so far has finished.
func (m *Manager) readyCh() chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ready
}

// Hosted reports whether m runs (or is starting) a host: false for nil
// and for a manager whose every path was missing.
func (m *Manager) Hosted() bool { return m != nil && m.stop != nil }

// Paths lists the extensions loaded or loading, in load order.
func (m *Manager) Paths() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.opts.Paths...)
}

// LoadMore loads paths into the running host after the extensions already
// loading, in the background; Wait then covers them too. The composition
// root loads the user and command-line extensions first, so that they
// alone decide project_trust, and the project's once it is trusted.
// settings, when non-nil, replaces what getSettings returns (the project
// settings are read only once trusted). m must be Hosted.
func (m *Manager) LoadMore(ctx context.Context, paths []string, settings any) {
	var missing []error
	keep := paths[:0:0]
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, &LoadError{Path: p, Err: errors.New("no such file or directory")})
			continue
		}
		keep = append(keep, p)
	}
	next := make(chan struct{})
	m.mu.Lock()
	prev := m.ready
	m.ready = next
	if settings != nil {
		m.opts.Settings = settings
	}
	m.mu.Unlock()
	go func() {
		<-prev
		errs := append(missing, m.loadMore(ctx, keep, settings != nil)...)
		m.mu.Lock()
		m.loadErr = append(m.loadErr, errs...)
		m.mu.Unlock()
		close(next)
	}()
}

// loadMore asks the host to load paths (their indexes continue after the
// loaded ones, as in Options.Paths).
func (m *Manager) loadMore(ctx context.Context, paths []string, newSettings bool) []error {
	m.mu.Lock()
	booted := m.node != ""
	m.mu.Unlock()
	if !booted {
		// The host could not start (no Node, no jiti): the first load
		// already said why.
		return nil
	}
	c, err := m.conn()
	if err != nil {
		return []error{fmt.Errorf("load extensions: %w", err)}
	}
	if len(paths) == 0 {
		if newSettings {
			if _, err := c.call(ctx, "state", m.initialState()); err != nil {
				return []error{fmt.Errorf("extension host state: %w", err)}
			}
		}
		return nil
	}
	m.mu.Lock()
	m.opts.Paths = append(m.opts.Paths, paths...)
	m.mu.Unlock()
	return m.initHost(ctx, c, paths)
}

// initErrors reads the host's answer to init: the extensions that failed.
func initErrors(raw json.RawMessage) ([]error, error) {
	var res struct {
		Extensions []struct {
			Path  string     `json:"path"`
			Error *wireError `json:"error"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	var errs []error
	for _, e := range res.Extensions {
		if e.Error != nil {
			errs = append(errs, &LoadError{Path: e.Path, Err: errors.New(oneLine(e.Error.Message))})
		}
	}
	return errs, nil
}

// Discard ends the host and removes everything its extensions registered
// (a project setting turned off an extension loaded before the trust
// decision: the run starts a host with the final set instead).
func (m *Manager) Discard() {
	if m == nil {
		return
	}
	m.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.regs != nil {
		m.clearRegs()
	}
}

// onTrust puts a project_trust handler on the seam. Only the extensions
// loaded before the decision (user and command-line ones) are asked: the
// project's load after it.
func (m *Manager) onTrust(src string, id int64) {
	on(m, &m.opts.Hooks.ProjectTrust, id, src, func(ctx context.Context, e *hooks.Trust) (hooks.TrustResult, error) {
		rep, err := m.call(ctx, id, map[string]any{"cwd": e.Cwd})
		if err != nil {
			return hooks.TrustResult{}, err
		}
		r, err := result[struct {
			Trusted  string `json:"trusted"`
			Remember bool   `json:"remember"`
		}](rep)
		if err != nil {
			return hooks.TrustResult{}, err
		}
		switch r.Trusted {
		case "yes":
			return hooks.TrustResult{Trusted: hooks.TrustYes, Remember: r.Remember}, nil
		case "no":
			return hooks.TrustResult{Trusted: hooks.TrustNo, Remember: r.Remember}, nil
		case "undecided", "":
			return hooks.TrustResult{}, nil
		}
		return hooks.TrustResult{}, fmt.Errorf("invalid result: trusted must be \"yes\", \"no\" or \"undecided\", not %q", r.Trusted)
	})
}
