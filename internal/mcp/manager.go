package mcp

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/tool"
)

// DirectWait is how long the first prompt waits for servers with direct
// tools, which must be declared in its request.
const DirectWait = 10 * time.Second

// Options configure a Manager.
type Options struct {
	Cwd           string
	Config        *Loaded
	Log           *ServerLog       // nil = no server log
	Auth          *CredentialStore // nil = no OAuth
	TempDir       string           // for truncated output and binary resources; "" = os.TempDir()
	ClientVersion string
	// HTTPTransport carries requests to HTTP servers (nil = the default).
	HTTPTransport http.RoundTripper
	// OnChange is called (from any goroutine) when a server's state or
	// tool list changed.
	OnChange func()
	// OpenURL opens a sign-in page in a browser (nil = only show it).
	OpenURL func(string)

	// Getenv resolves ${VAR} in env and headers (nil = os.Getenv).
	Getenv func(string) string
	// Environ is the environment stdio servers start with, before their
	// configured env (nil = os.Environ()).
	Environ []string

	resolver *resolver // tests
}

// Manager owns the configured servers of one session.
type Manager struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	seq    atomic.Int64

	// servers are the configured servers, then the ones extensions
	// registered; registrations change it while the session runs.
	serversMu sync.RWMutex
	servers   []*Server
	// overridden says which registered servers mcp.json overrides.
	overridden []string
	started    bool // Start ran: registered servers connect at once
	regErrs    []error

	startOnce sync.Once
	restOnce  sync.Once
	restTimer *time.Timer
	closeOnce sync.Once

	listenMu sync.Mutex
	listener func() // Register's tool sync
}

// NewManager prepares the servers of opts.Config; nothing is started.
func NewManager(opts Options) *Manager {
	if opts.Config == nil {
		opts.Config = &Loaded{}
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.resolver == nil {
		r := defaultResolver()
		if opts.Getenv != nil {
			r.getenv = opts.Getenv
		}
		opts.resolver = &r
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel}
	for _, e := range opts.Config.Servers {
		m.servers = append(m.servers, newServer(m, e))
	}
	return m
}

// restDelay is when servers without direct tools start connecting at the
// latest, when no model request came first.
var restDelay = time.Second

// Start connects the enabled servers in the background and returns at
// once. Servers with direct tools start now: the first request waits for
// them. The others start once the first model answer arrives (the
// composition root calls StartRest) or after restDelay, so twenty configured
// servers do not compete with relay's own start-up; anything that needs
// them (a call, WaitAll) starts them at once.
func (m *Manager) Start() {
	m.startOnce.Do(func() {
		m.serversMu.Lock()
		m.started = true
		m.serversMu.Unlock()
		for _, s := range m.Servers() {
			if s.Entry.Config.IsEnabled() && hasDirectTools(&s.Entry.Config) {
				s.connect()
			}
		}
		m.restTimer = time.AfterFunc(restDelay, m.StartRest)
	})
}

// StartRest starts the servers Start left for later.
func (m *Manager) StartRest() {
	m.restOnce.Do(func() {
		for _, s := range m.Servers() {
			if s.Entry.Config.IsEnabled() && !hasDirectTools(&s.Entry.Config) {
				s.connect()
			}
		}
	})
}

// Servers lists the servers in configuration order.
func (m *Manager) Servers() []*Server {
	m.serversMu.RLock()
	defer m.serversMu.RUnlock()
	return append([]*Server(nil), m.servers...)
}

// Server returns the server called name.
func (m *Manager) Server(name string) *Server {
	for _, s := range m.Servers() {
		if s.Entry.Name == name {
			return s
		}
	}
	return nil
}

// hasDirectTools reports a config whose server or some tool is direct.
func hasDirectTools(c *ServerConfig) bool {
	if c.ServerExposure() == ExposureDirect {
		return true
	}
	for _, r := range c.ToolExposure {
		if r.Exposure == ExposureDirect {
			return true
		}
	}
	return false
}

// WaitDirect waits, at most max, until every enabled server that may have
// direct tools has finished its first connection attempt. It reports
// whether they all did.
func (m *Manager) WaitDirect(ctx context.Context, max time.Duration) bool {
	return m.wait(ctx, max, func(s *Server) bool { return hasDirectTools(&s.Entry.Config) })
}

// WaitAll waits, at most max, for the first connection attempt of every
// enabled server (tool search and the resource tools need them all).
func (m *Manager) WaitAll(ctx context.Context, max time.Duration) bool {
	m.StartRest()
	return m.wait(ctx, max, func(*Server) bool { return true })
}

func (m *Manager) wait(ctx context.Context, max time.Duration, which func(*Server) bool) bool {
	t := time.NewTimer(max)
	defer t.Stop()
	for _, s := range m.Servers() {
		if !s.Entry.Config.IsEnabled() || !which(s) {
			continue
		}
		select {
		case <-s.tried:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// Tools returns the tools of the servers that connected (and kept them
// after a dropped connection), hidden ones left out, named uniquely across
// servers.
func (m *Manager) Tools() []*Tool {
	var out []*Tool
	used := map[string]bool{}
	for _, s := range m.Servers() {
		tools, state := s.snapshot()
		// A dropped server keeps its tools: the next call reconnects.
		if state == StateDisabled || state == StateClosed || len(tools) == 0 {
			continue
		}
		remote := make([]string, len(tools))
		for i, t := range tools {
			remote[i] = t.Name
		}
		names := toolNames(s.Entry.Name, remote, func(n string) bool { return used[n] })
		for i, t := range tools {
			used[names[i]] = true
			exp := s.Entry.Config.ToolExposureOf(t.Name)
			if exp == ExposureHidden {
				continue
			}
			out = append(out, &Tool{server: s, name: names[i], remote: t, exposure: exp})
		}
	}
	return out
}

// AllTools returns Tools plus the resource tools, as tool.Tool values with
// their exposure: what a runtime registers.
func (m *Manager) AllTools() []Exposed {
	var out []Exposed
	for _, t := range m.Tools() {
		out = append(out, Exposed{Tool: t, Exposure: t.Exposure()})
	}
	if exp, ok := m.resourceExposure(); ok {
		for _, t := range m.resourceTools() {
			out = append(out, Exposed{Tool: t, Exposure: exp})
		}
	}
	return out
}

// Exposed is a tool and how it reaches the model.
type Exposed struct {
	Tool     tool.Tool
	Exposure Exposure
}

func (m *Manager) converter(s *Server) converter {
	dir := m.opts.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	_, readable := m.resourceExposure()
	st := s.Status()
	return converter{server: s.Entry.Name, readable: readable && st.HasResources, save: tempSaver(dir)}
}

// Close disconnects every server and stops stdio processes.
func (m *Manager) Close() {
	m.closeOnce.Do(func() {
		if m.restTimer != nil {
			m.restTimer.Stop()
		}
		m.restOnce.Do(func() {}) // nothing starts after Close
		m.cancel()
		var wg sync.WaitGroup
		for _, s := range m.Servers() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.close()
			}()
		}
		wg.Wait()
	})
}
