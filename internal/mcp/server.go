package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is a server's connection state.
type State string

const (
	StateDisabled     State = "disabled"
	StateConnecting   State = "connecting"
	StateConnected    State = "connected"
	StateDisconnected State = "disconnected" // dropped; the next call reconnects
	StateNeedsAuth    State = "needs-auth"
	StateFailed       State = "failed"
	StateClosed       State = "closed"
)

// Limits on what a server may list.
const (
	maxListPages = 100
	maxTools     = 5000
)

// connectRetryDelays are the waits before the second and third connection
// attempt to an HTTP server after a transient failure (§6: retried twice).
var connectRetryDelays = []time.Duration{250 * time.Millisecond, time.Second}

// readRetryDelay is the wait before the one retry of a resource request.
var readRetryDelay = 250 * time.Millisecond

// ErrSignInRequired means an OAuth server needs the user to sign in.
var ErrSignInRequired = errors.New("sign-in required")

// Server is one configured server and its connection. Calls connect on
// demand and reconnect after the connection dropped.
type Server struct {
	m     *Manager
	Entry Entry

	mu           sync.Mutex
	state        State
	err          string
	sess         *sdk.ClientSession
	proc         *stdioProcess
	tools        []*sdk.Tool
	hasResources bool
	resources    int
	templates    int
	instructions string
	opening      *attempt
	tried        chan struct{} // closed once the first connection attempt ended
	triedOnce    sync.Once
	closed       bool
	progress     map[string]func(*sdk.ProgressNotificationParams)
	// registered is the configuration an extension registered the
	// server with, to tell a registration again from a changed one.
	registered []byte
}

type attempt struct {
	done chan struct{}
	sess *sdk.ClientSession
	err  error
}

func newServer(m *Manager, e Entry) *Server {
	s := &Server{m: m, Entry: e, state: StateConnecting, tried: make(chan struct{}),
		progress: map[string]func(*sdk.ProgressNotificationParams){}}
	if !e.Config.IsEnabled() {
		s.state = StateDisabled
		s.markTried()
	}
	return s
}

// Name is the configured server name.
func (s *Server) Name() string { return s.Entry.Name }

// Status is a snapshot for /mcp and `relay mcp list`.
type Status struct {
	Name         string
	State        State
	Error        string
	Tools        []string // server tool names
	Resources    int
	Templates    int
	HasResources bool
	Instructions string
}

// Status returns the server's current state.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.Entry.Name, State: s.state, Error: s.err, Resources: s.resources,
		Templates: s.templates, HasResources: s.hasResources, Instructions: s.instructions}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.Name)
	}
	return st
}

func (s *Server) markTried() { s.triedOnce.Do(func() { close(s.tried) }) }

func (s *Server) timeout() time.Duration {
	return time.Duration(s.Entry.Config.TimeoutSeconds() * float64(time.Second))
}

func (s *Server) changed() {
	if s.m.opts.OnChange != nil {
		s.m.opts.OnChange()
	}
	s.m.listenMu.Lock()
	fn := s.m.listener
	s.m.listenMu.Unlock()
	if fn != nil {
		fn()
	}
}

// session returns a connected session, connecting (or waiting for the
// connection in progress) when needed. The connection itself is not tied
// to ctx: a caller that gives up leaves it to finish for the next one.
func (s *Server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q is shut down", s.Entry.Name)
	}
	if !s.Entry.Config.IsEnabled() {
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q is disabled", s.Entry.Name)
	}
	if s.sess != nil && s.proc != nil && s.proc.exited() {
		dead := s.sess
		s.sess, s.proc, s.state = nil, nil, StateDisconnected
		go dead.Close()
	}
	if s.sess != nil && s.state == StateConnected {
		sess := s.sess
		s.mu.Unlock()
		return sess, nil
	}
	a := s.opening
	if a == nil {
		a = &attempt{done: make(chan struct{})}
		s.opening = a
		s.state = StateConnecting
		go s.open(a)
	}
	s.mu.Unlock()
	select {
	case <-a.done:
		return a.sess, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// connect starts a connection attempt in the background.
func (s *Server) connect() {
	go func() { _, _ = s.session(s.m.ctx) }()
}

func (s *Server) open(a *attempt) {
	defer close(a.done)
	defer s.markTried()
	s.changed()
	var delays []time.Duration
	if s.Entry.Config.IsHTTP() {
		delays = connectRetryDelays
	}
	for i := 0; ; i++ {
		sess, stderr, err := s.connectOnce()
		if err == nil {
			a.sess = sess
			break
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed || i >= len(delays) || !isTransient(err) || errors.Is(err, ErrSignInRequired) {
			a.err = s.connectFailed(err, stderr)
			break
		}
		select {
		case <-time.After(delays[i]):
		case <-s.m.ctx.Done():
		}
	}
	s.mu.Lock()
	s.opening = nil
	s.mu.Unlock()
	s.changed()
}

func (s *Server) connectFailed(err error, stderr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(err, ErrSignInRequired) && !s.closed {
		s.state, s.err = StateNeedsAuth, ""
		return s.signInError()
	}
	msg := err.Error()
	if stderr != "" {
		msg += "\n" + stderr
	}
	s.state, s.err = StateFailed, msg
	if s.closed {
		s.state = StateClosed
	}
	return fmt.Errorf("MCP server %q failed to connect: %s", s.Entry.Name, msg)
}

func (s *Server) signInError() error {
	return fmt.Errorf("MCP server %q requires sign-in. Run /mcp or `relay mcp login %s` to sign in: %w", s.Entry.Name, s.Entry.Name, ErrSignInRequired)
}

// connectOnce makes one connection: start or reach the server, initialize,
// list tools and count resources.
func (s *Server) connectOnce() (*sdk.ClientSession, string, error) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.timeout())
	defer cancel()
	cfg := &s.Entry.Config
	name := s.Entry.Name
	client := sdk.NewClient(&sdk.Implementation{Name: "relay", Version: s.m.opts.ClientVersion}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			if p := req.Params; p != nil {
				s.m.opts.Log.Write(name, string(p.Level), p.Logger, p.Data)
			}
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { go s.refreshTools() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			go s.refreshResources()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if req.Params != nil {
				s.progressed(req.Params)
			}
		},
	})
	if cwd := s.m.opts.Cwd; cwd != "" {
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(cwd)}).String(), Name: filepath.Base(cwd)})
	}
	res := *s.m.opts.resolver
	var transport sdk.Transport
	var proc *stdioProcess
	if cfg.IsHTTP() {
		headers, err := res.pairs(ctx, cfg.Headers, "header")
		if err != nil {
			return nil, "", err
		}
		var oauth oauthHandler
		if cfg.UsesOAuth() && s.m.opts.Auth != nil {
			oauth = s.m.opts.Auth.handler(name, cfg)
		}
		transport = httpTransport(cfg, headers, s.m.opts.HTTPTransport, oauth)
	} else {
		env, err := res.pairs(ctx, cfg.Env, "env")
		if err != nil {
			return nil, "", err
		}
		proc, err = startStdio(cfg, s.m.opts.Cwd, s.m.opts.Environ, env)
		if err != nil {
			return nil, "", err
		}
		transport = proc.transport()
	}
	sess, err := client.Connect(ctx, transport, nil)
	stderr := func() string {
		if proc == nil {
			return ""
		}
		return proc.stderr.String()
	}
	if err != nil {
		if proc != nil {
			proc.kill()
		}
		return nil, stderr(), s.explain(ctx, err)
	}
	init := sess.InitializeResult()
	var tools []*sdk.Tool
	hasResources := false
	if init != nil && init.Capabilities != nil {
		if init.Capabilities.Tools != nil {
			tools, err = listTools(ctx, sess)
			if err != nil {
				sess.Close()
				return nil, stderr(), s.explain(ctx, fmt.Errorf("list tools: %w", err))
			}
		}
		hasResources = init.Capabilities.Resources != nil
		if init.Capabilities.Logging != nil {
			// Servers that wait for a level before logging log to mcp.log.
			go func() {
				lctx, cancel := context.WithTimeout(s.m.ctx, s.timeout())
				defer cancel()
				_ = sess.SetLoggingLevel(lctx, &sdk.SetLoggingLevelParams{Level: "info"})
			}()
		}
	}
	nres, ntpl := 0, 0
	if hasResources {
		nres, ntpl = countResources(ctx, sess)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sess.Close()
		return nil, "", errors.New("shut down while connecting")
	}
	s.sess, s.proc, s.tools = sess, proc, tools
	s.hasResources, s.resources, s.templates = hasResources, nres, ntpl
	s.instructions = ""
	if init != nil {
		s.instructions = strings.TrimSpace(init.Instructions)
	}
	s.state, s.err = StateConnected, ""
	s.mu.Unlock()
	go s.watch(sess, proc)
	return sess, "", nil
}

// explain turns a connect-time error into one a user can act on.
func (s *Server) explain(ctx context.Context, err error) error {
	if errors.Is(err, ErrSignInRequired) {
		return err
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("no answer within %gs: %w", s.Entry.Config.TimeoutSeconds(), err)
	}
	return err
}

// watch marks the server disconnected when its connection ends.
func (s *Server) watch(sess *sdk.ClientSession, proc *stdioProcess) {
	werr := sess.Wait()
	s.mu.Lock()
	if s.sess != sess {
		s.mu.Unlock()
		return
	}
	s.sess, s.proc = nil, nil
	if !s.closed {
		s.state = StateDisconnected
		msg := "connection closed"
		if werr != nil && !errors.Is(werr, sdk.ErrConnectionClosed) {
			msg = werr.Error()
		}
		if proc != nil {
			if tail := proc.stderr.String(); tail != "" {
				msg += "\n" + tail
			}
		}
		s.err = msg
	}
	s.mu.Unlock()
	if proc != nil {
		proc.stop()
	}
	s.changed()
}

func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		res, err := sess.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			if t != nil && t.Name != "" && len(out) < maxTools {
				out = append(out, t)
			}
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			break
		}
		cursor = res.NextCursor
	}
	return out, nil
}

// countResources counts resources and templates for status displays; a
// server whose lists fail still connects.
func countResources(ctx context.Context, sess *sdk.ClientSession) (int, int) {
	nres, ntpl := 0, 0
	if all, err := allResources(ctx, sess); err == nil {
		nres = len(all)
	}
	if all, err := allTemplates(ctx, sess); err == nil {
		ntpl = len(all)
	}
	return nres, ntpl
}

func (s *Server) refreshTools() {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, s.timeout())
	defer cancel()
	tools, err := listTools(ctx, sess)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.sess == sess {
		s.tools = tools
	}
	s.mu.Unlock()
	s.changed()
}

func (s *Server) refreshResources() {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, s.timeout())
	defer cancel()
	nres, ntpl := countResources(ctx, sess)
	s.mu.Lock()
	if s.sess == sess {
		s.resources, s.templates = nres, ntpl
	}
	s.mu.Unlock()
	s.changed()
}

func (s *Server) progressed(p *sdk.ProgressNotificationParams) {
	key := fmt.Sprint(p.ProgressToken)
	s.mu.Lock()
	fn := s.progress[key]
	s.mu.Unlock()
	if fn != nil {
		fn(p)
	}
}

// errTimeout is the cancellation cause of a request that ran out of time.
var errTimeout = errors.New("request timed out")

// request runs one request with the server's timeout; progress
// notifications for its token restart the timer. readOnly requests are
// retried once after a transient HTTP error; every request is retried once
// on a new session when the server forgot the old one (it did not run it).
func (s *Server) request(ctx context.Context, readOnly bool, onProgress func(*sdk.ProgressNotificationParams),
	run func(ctx context.Context, sess *sdk.ClientSession, token string) error) error {
	for attempt := 1; ; attempt++ {
		sess, err := s.session(ctx)
		if err != nil {
			return err
		}
		token := fmt.Sprintf("relay-%d", s.m.seq.Add(1))
		timeout := s.timeout()
		rctx, cancel := context.WithCancelCause(ctx)
		timer := time.AfterFunc(timeout, func() { cancel(errTimeout) })
		s.mu.Lock()
		s.progress[token] = func(p *sdk.ProgressNotificationParams) {
			timer.Reset(timeout)
			if onProgress != nil {
				onProgress(p)
			}
		}
		s.mu.Unlock()
		err = run(rctx, sess, token)
		timer.Stop()
		timedOut := errors.Is(context.Cause(rctx), errTimeout)
		cancel(nil)
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
		if err == nil {
			return nil
		}
		if timedOut {
			return fmt.Errorf("MCP server %q did not answer within %gs (the server's timeout)", s.Entry.Name, s.Entry.Config.TimeoutSeconds())
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, ErrSignInRequired) {
			s.dropSession(sess)
			s.mu.Lock()
			s.state, s.err = StateNeedsAuth, ""
			s.mu.Unlock()
			s.changed()
			return s.signInError()
		}
		if attempt == 1 && errors.Is(err, sdk.ErrSessionMissing) {
			s.dropSession(sess)
			continue
		}
		if attempt == 1 && readOnly && isTransient(err) {
			select {
			case <-time.After(readRetryDelay):
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		if s.connectionLost(sess, err) {
			msg := fmt.Sprintf("MCP server %q closed the connection during the request (%v)", s.Entry.Name, err)
			if tail := s.stderrOf(sess); tail != "" {
				msg += "; its last output on stderr:\n" + tail
			}
			s.dropSession(sess)
			return errors.New(msg)
		}
		return err
	}
}

// connectionLost reports a request error that means the connection is
// gone: anything but a JSON-RPC error answer over stdio, and closed
// connections over HTTP.
func (s *Server) connectionLost(sess *sdk.ClientSession, err error) bool {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return false
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	return !s.Entry.Config.IsHTTP()
}

func (s *Server) stderrOf(sess *sdk.ClientSession) string {
	// The watcher may already have cleared s.proc; the error text keeps
	// the tail in s.err then.
	s.mu.Lock()
	proc := s.proc
	if s.sess != sess {
		proc = nil
	}
	s.mu.Unlock()
	if proc != nil {
		// Give the exiting process a moment, so its last words are in.
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-proc.done:
		case <-t.C:
		}
		t.Stop()
		return proc.stderr.String()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateDisconnected {
		if i := strings.IndexByte(s.err, '\n'); i >= 0 {
			return s.err[i+1:]
		}
	}
	return ""
}

// dropSession forgets sess so the next request reconnects.
func (s *Server) dropSession(sess *sdk.ClientSession) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess, s.proc = nil, nil
		s.state = StateDisconnected
	}
	s.mu.Unlock()
	go sess.Close()
}

// CallTool calls the server tool named remote. onProgress receives the
// server's progress messages.
func (s *Server) CallTool(ctx context.Context, remote string, args json.RawMessage, onProgress func(string)) (*sdk.CallToolResult, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var out *sdk.CallToolResult
	progress := func(p *sdk.ProgressNotificationParams) {
		if onProgress == nil {
			return
		}
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("Progress %g", p.Progress)
			if p.Total > 0 {
				msg += fmt.Sprintf("/%g", p.Total)
			}
		}
		onProgress(msg)
	}
	err := s.request(ctx, false, progress, func(ctx context.Context, sess *sdk.ClientSession, token string) error {
		// Protocol 2026-07-28 servers take the log level per request.
		params := &sdk.CallToolParams{Name: remote, Arguments: args, Meta: sdk.Meta{sdk.MetaKeyLogLevel: "info"}}
		params.SetProgressToken(token)
		res, err := sess.CallTool(ctx, params)
		out = res
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("MCP server %q sent no result", s.Entry.Name)
	}
	return out, nil
}

// Reconnect drops the connection and connects again.
func (s *Server) Reconnect(ctx context.Context) error {
	s.mu.Lock()
	a := s.opening
	s.mu.Unlock()
	if a != nil {
		<-a.done
	}
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess != nil {
		s.dropSession(sess)
	}
	_, err := s.session(ctx)
	return err
}

// SetEnabled turns the server on (connecting it) or off (disconnecting).
func (s *Server) SetEnabled(on bool) {
	s.mu.Lock()
	s.Entry.Config.Enabled = &on
	sess := s.sess
	if !on {
		s.sess, s.proc, s.tools = nil, nil, nil
		s.state, s.err = StateDisabled, ""
	}
	s.mu.Unlock()
	if !on && sess != nil {
		go sess.Close()
	}
	if on {
		s.connect()
	}
	s.changed()
}

// close shuts the connection down for good.
func (s *Server) close() {
	s.mu.Lock()
	s.closed = true
	sess := s.sess
	s.sess, s.proc = nil, nil
	s.state = StateClosed
	s.mu.Unlock()
	s.markTried()
	if sess != nil {
		_ = sess.Close()
	}
}

// snapshot returns the tools and connection state under the lock.
func (s *Server) snapshot() ([]*sdk.Tool, State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools, s.state
}
