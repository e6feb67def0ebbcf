// Package ext runs relay's extensions: TypeScript or JavaScript modules
// whose default export receives an ExtensionAPI (upstream-spec-extras §14).
// They run out of process in a small Node program embedded here (host/),
// started only when at least one extension is configured. Go and the host
// talk JSON-RPC over two pipes; what an extension registers lands on the
// runtime's seams: handlers on hooks.Set, tools in tool.Registry, commands
// in commands.Registry.
//
// Faults stay inside: an extension that fails to load is reported by path
// and the others load; a handler that throws or outlives its timeout is
// reported (extension_error) and skipped as the seam does for any failing
// handler; a host that dies is reported once and started again.
package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

// DefaultHandlerTimeout bounds one handler call (time spent waiting for
// the person in a dialog does not count).
const DefaultHandlerTimeout = 30 * time.Second

// Options configures the extensions of one relay run.
type Options struct {
	// Paths are the extension files, directories and package roots, in
	// load order.
	Paths    []string
	AgentDir string
	// CacheDir holds the host script and the TypeScript cache (default:
	// the user cache dir's relay/).
	CacheDir string
	Cwd      string
	// Mode is "tui", "rpc", "json" or "print"; HasUI is false for the
	// last two.
	Mode  string
	HasUI bool
	// Flags are the command line's unknown --flags, for registerFlag.
	Flags      map[string]string
	NpmCommand []string
	// Environ is the host's environment (the process environment as
	// config.Env read it).
	Environ  []string
	Hooks    *hooks.Set
	Commands *commands.Registry
	Tools    *tool.Registry
	// Shutdown is ctx.shutdown(): a graceful quit request (nil ignores it).
	Shutdown func()
	// Providers receives registerProvider (the model registry); nil
	// ignores provider configurations (streams still work).
	Providers      ProviderRegistry
	HandlerTimeout time.Duration
	// Settings is what getSettings returns (JSON-marshalled once).
	Settings any
	// Log receives the host's own stdout and stderr (extensions' console
	// output); nil discards it.
	Log io.Writer
	// LookPath finds programs (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// ToolEnv is the built-in tools' environment (settings, session
	// variables) for the tool factories extensions import
	// (createReadTool, ...); nil: the built-ins' defaults in Cwd.
	ToolEnv func() builtin.Env
}

// LoadError is an extension that did not load, or a registration of it
// that was refused.
type LoadError struct {
	Path string
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("extension %s: %v", e.Path, e.Err) }
func (e *LoadError) Unwrap() error { return e.Err }

// Manager is the extensions of one run and the host they live in.
type Manager struct {
	opts Options

	ready   chan struct{} // closed when the first load finished
	loadErr []error       // load errors of the first start (read after ready)

	mu       sync.Mutex
	c        *conn
	node     string
	script   string
	jiti     string
	regs     map[int64]func() // handler id -> off
	tools    []string         // tool names registered, in order
	cmds     []string
	flags    map[string]flagDecl
	async    map[string][]asyncHandler // event -> handlers fed from runtime events
	updates  map[int64]func(json.RawMessage)
	rt       *app.Runtime
	active   *tool.Active // the runtime's tool selection (Attach)
	closed   bool
	restarts []time.Time
	regErrs  []error         // refused registrations during the first load
	inactive map[string]bool // tools registered with defaultActive: false
	// restarting is closed when a restarted host finished loading; stale
	// are the exited host's handlers, removed when the new one registers.
	restarting chan struct{}
	comps      map[int64]*hostComponent // host components the front end shows
	virtual    map[string]*virtualModel // "provider/id" -> registerVirtualModel
	shadowed   map[string]builtinTool   // built-in tools an extension tool replaced, by name
	providers  map[string]*providerReg  // registerProvider, by name
	// pendingProviders wait for BindProviders (registered before the
	// model registry existed).
	pendingProviders []models.ProviderConfig
	streamAPIs       map[string]string // api -> provider whose streamSimple serves it
	routerOn         bool              // the Route handler is on the seam
	synthetic        int64             // keys below 0 in regs: registrations that are not handlers
	base             app.Models        // the registry Models wraps
	doneComps        map[int64]func()  // custom() calls to end on component_done
	// inputs are the host's raw-input listeners (editor.go): listener id
	// -> key in regs (0: switched off), for the host inputsConn.
	inputs     map[int64]int64
	inputsConn *conn
	// themeSent is the palette last sent to host themeConn (render.go).
	themeSent string
	themeConn *conn
	stale     map[int64]func()
	queue     chan func() // observed events, in order
	stop      chan struct{}
	inflight  sync.WaitGroup // fire-and-forget API calls being applied

	busy   atomic.Int32 // runs in progress (agent_start .. agent_end)
	asked  atomic.Int32 // dialogs open on behalf of a handler (pauses timeouts)
	nested atomic.Int64 // ctx.executeTool call ids
	lib    libState     // library requests (tool factories, complete) in progress
	// catalog is the fingerprint of the tool and command lists last sent
	// to the host (they are sent again only when they change).
	catalog string
}

type flagDecl struct {
	Ext         string
	Description string
	Type        string
	Default     any
}

type asyncHandler struct {
	id  int64
	src string
}

// Start begins loading opts.Paths in the background; Wait returns when
// they loaded. With no paths it returns nil: no Node process, no cost.
func Start(ctx context.Context, opts Options) *Manager {
	// A path that does not exist is reported without starting anything.
	var missing []error
	paths := opts.Paths[:0:0]
	for _, p := range opts.Paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, &LoadError{Path: p, Err: errors.New("no such file or directory")})
			continue
		}
		paths = append(paths, p)
	}
	opts.Paths = paths
	if len(paths) == 0 {
		if len(missing) == 0 {
			return nil
		}
		m := &Manager{opts: opts, ready: make(chan struct{}), loadErr: missing}
		close(m.ready)
		return m
	}
	if opts.HandlerTimeout <= 0 {
		opts.HandlerTimeout = DefaultHandlerTimeout
	}
	if opts.Tools == nil {
		// Until BindTools: the runtime's registry is built later.
		opts.Tools, _ = tool.NewRegistry()
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.CacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			opts.CacheDir = filepath.Join(d, "relay")
		} else {
			opts.CacheDir = filepath.Join(opts.AgentDir, "cache")
		}
	}
	m := &Manager{opts: opts, ready: make(chan struct{}), regs: map[int64]func(){}, inactive: map[string]bool{}, flags: map[string]flagDecl{},
		async: map[string][]asyncHandler{}, updates: map[int64]func(json.RawMessage){},
		queue: make(chan func(), 4096), stop: make(chan struct{})}
	go m.work()
	ready := m.ready // LoadMore replaces m.ready; this load closes its own
	go func() {
		errs := append(missing, m.boot(ctx)...)
		m.mu.Lock()
		m.loadErr = errs
		m.mu.Unlock()
		close(ready)
	}()
	return m
}

// Wait blocks until the extensions loaded and returns what failed: each
// error names the extension (a *LoadError) or says why none could load.
func (m *Manager) Wait(ctx context.Context) []error {
	if m == nil {
		return nil
	}
	select {
	case <-m.readyCh():
		m.mu.Lock()
		defer m.mu.Unlock()
		return append([]error(nil), m.loadErr...)
	case <-ctx.Done():
		return []error{ctx.Err()}
	}
}

// boot prepares the host (script, node, jiti) and loads the extensions.
func (m *Manager) boot(ctx context.Context) []error {
	node, err := findNode(m.opts.LookPath)
	if err != nil {
		return []error{err}
	}
	script, err := hostScript(m.opts.CacheDir)
	if err != nil {
		return []error{err}
	}
	jiti, err := ensureJiti(ctx, m.opts.AgentDir, m.opts.NpmCommand)
	if err != nil {
		return []error{err}
	}
	m.mu.Lock()
	m.node, m.script, m.jiti = node, script, jiti
	m.mu.Unlock()
	return m.launch(ctx)
}

// launch starts a host and loads every extension into it.
func (m *Manager) launch(ctx context.Context) []error {
	c, err := startConn(m.node, m.script, m.opts.Environ, m.opts.Log, m.handle)
	if err != nil {
		return []error{err}
	}
	m.mu.Lock()
	m.c = c
	m.mu.Unlock()
	go m.watch(c)
	m.mu.Lock()
	paths := append([]string(nil), m.opts.Paths...)
	m.mu.Unlock()
	return m.initHost(ctx, c, paths)
}

// initHost loads paths into the host behind c and returns the extensions
// that failed and the registrations refused.
func (m *Manager) initHost(ctx context.Context, c *conn, paths []string) []error {
	params := map[string]any{
		"extensions": paths, "jitiPath": m.jiti, "cacheDir": m.opts.CacheDir,
		"state": m.initialState(),
	}
	// Loading transpiles TypeScript on first use: minutes on a cold,
	// loaded machine are possible; a hung factory is still bounded.
	lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	raw, err := c.call(lctx, "init", params)
	if err != nil {
		if errors.Is(err, errHostGone) {
			if verr := checkNodeVersion(m.node); verr != nil {
				return []error{verr}
			}
		}
		return []error{fmt.Errorf("load extensions: %w", err)}
	}
	errs, err := initErrors(raw)
	if err != nil {
		return []error{fmt.Errorf("load extensions: %w", err)}
	}
	m.mu.Lock()
	errs = append(errs, m.takeRegErrs()...)
	m.mu.Unlock()
	return errs
}

func (m *Manager) initialState() map[string]any {
	flags := map[string]any{}
	for k, v := range m.opts.Flags {
		flags[k] = v
	}
	m.mu.Lock()
	settings := m.opts.Settings
	m.mu.Unlock()
	return map[string]any{"cwd": m.opts.Cwd, "mode": m.opts.Mode, "hasUI": m.opts.HasUI, "agentDir": m.opts.AgentDir, "flags": flags,
		"settings": settings, "builtinTools": builtinSpecs()}
}

// Attach binds the runtime once it exists: API calls that act on the
// session and model, runtime events for the observing handlers, and the
// extension tools made active in active, the runtime's tool selection.
func (m *Manager) Attach(rt *app.Runtime, active *tool.Active) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.rt, m.active = rt, active
	m.mu.Unlock()
	rt.Subscribe(m.forward)
	m.activate(m.ToolNames())
}

// BindTools moves the tools registered so far into reg, the registry the
// runtime uses, and registers later ones there. A name reg already holds
// (a built-in tool) is refused with an error naming the extension.
func (m *Manager) BindTools(reg *tool.Registry) []error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	kept := m.tools[:0:0]
	for _, n := range m.tools {
		t, ok := m.opts.Tools.Get(n)
		if !ok {
			continue
		}
		if old, taken := reg.Get(n); taken {
			// A built-in tool of that name: the extension's replaces it
			// (the original's rule), restored if the extension goes.
			m.shadow(n, old, t.(*extTool).src)
			reg.Replace(t)
		} else if err := reg.Add(t); err != nil {
			errs = append(errs, &LoadError{Path: t.(*extTool).src, Err: fmt.Errorf("tool %s: %w", n, err)})
			continue
		}
		kept = append(kept, n)
	}
	m.tools = kept
	m.opts.Tools = reg
	return errs
}

// ActiveByDefault lists the extension tools to declare at start (those
// not registered with defaultActive: false).
func (m *Manager) ActiveByDefault() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, n := range m.tools {
		if !m.inactive[n] {
			out = append(out, n)
		}
	}
	return out
}

// ToolNames lists the tools the extensions registered, in order.
func (m *Manager) ToolNames() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.tools...)
}

// activate adds names to the runtime's active tools (when tools are on).
func (m *Manager) activate(names []string) {
	m.mu.Lock()
	lo := m.active
	m.mu.Unlock()
	if lo == nil || len(names) == 0 {
		return
	}
	active := lo.Names()
	if len(active) == 0 {
		// No tools at all (-nt, defaultTools: []): extensions do not
		// change that.
		return
	}
	next := append([]string(nil), active...)
	for _, n := range names {
		if !slices.Contains(next, n) {
			next = append(next, n)
		}
	}
	if len(next) != len(active) {
		lo.Set(next)
	}
}

// loadout is the runtime's tool selection (nil before Attach).
func (m *Manager) loadout() *tool.Active {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active
}

// Close ends the host. Handlers registered on the seam stay but fail fast.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	<-m.readyCh()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	c := m.c
	m.mu.Unlock()
	if m.stop == nil {
		return
	}
	close(m.stop)
	m.settle()
	if c != nil {
		c.close()
	}
}

// work runs the observed events' handlers in order.
func (m *Manager) work() {
	for {
		select {
		case fn := <-m.queue:
			fn()
		case <-m.stop:
			return
		}
	}
}

// conn returns the live host connection, waiting for a restart in
// progress.
func (m *Manager) conn() (*conn, error) {
	m.mu.Lock()
	wait := m.restarting
	if m.c == nil && wait != nil && !m.closed {
		m.mu.Unlock()
		select {
		case <-wait:
		case <-time.After(30 * time.Second):
		}
		m.mu.Lock()
	}
	defer m.mu.Unlock()
	if m.c == nil || m.closed {
		return nil, errHostGone
	}
	return m.c, nil
}

// watch reports a host that exited on its own, once, and starts another
// (at most three times a minute, so a host that dies on start does not
// loop).
func (m *Manager) watch(c *conn) {
	<-c.done
	m.mu.Lock()
	if m.closed || m.c != c {
		m.mu.Unlock()
		return
	}
	err := c.goneErr()
	now := time.Now()
	recent := m.restarts[:0]
	for _, t := range m.restarts {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	m.restarts = append(recent, now)
	again := len(m.restarts) <= 3
	m.c = nil
	if again {
		// Calls wait for the new host; the old handlers stay on the seam
		// (a tool_call gate never lapses) until the new host registers
		// its own, and tools and commands are replaced in place.
		m.restarting = make(chan struct{})
		m.stale, m.regs = m.regs, map[int64]func(){}
		m.async = map[string][]asyncHandler{}
	} else {
		m.clearRegs()
	}
	m.mu.Unlock()
	msg := err.Error()
	if again {
		msg += "; restarting it"
	} else {
		msg += "; not restarting it again (3 crashes within a minute)"
	}
	m.report("extension host", "host_exit", errors.New(msg))
	if !again {
		return
	}
	errs := m.launch(context.Background())
	m.mu.Lock()
	m.dropStale()
	close(m.restarting)
	m.restarting = nil
	m.mu.Unlock()
	for _, e := range errs {
		m.report(pathOf(e), "load", e)
	}
	m.activate(m.ToolNames())
}

// dropStale removes the handlers of a host that exited (under m.mu).
func (m *Manager) dropStale() {
	for _, off := range m.stale {
		off()
	}
	m.stale = nil
}

func pathOf(err error) string {
	var le *LoadError
	if errors.As(err, &le) {
		return le.Path
	}
	return "extension host"
}

// clearRegs removes everything the host registered (under m.mu).
func (m *Manager) clearRegs() {
	for _, off := range m.regs {
		off()
	}
	m.regs = map[int64]func(){}
	for _, n := range m.tools {
		m.opts.Tools.Remove(n)
		if b, ok := m.shadowed[n]; ok {
			m.opts.Tools.Replace(b.tool)
			delete(m.shadowed, n)
		}
	}
	m.tools = nil
	for _, n := range m.cmds {
		m.opts.Commands.Unregister(n)
	}
	m.cmds = nil
	m.async = map[string][]asyncHandler{}
}

// report sends a failure to the seam's error sink: an extension_error
// event once the runtime is attached.
func (m *Manager) report(source, event string, err error) {
	if m.opts.Hooks != nil && m.opts.Hooks.OnError != nil {
		m.opts.Hooks.OnError(&hooks.HandlerError{Event: event, Source: source, Err: err})
	}
}

// timed bounds a handler call by the handler timeout, paused while a
// dialog the extension opened is waiting for the person.
func (m *Manager) timed(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	d := m.opts.HandlerTimeout
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		if m.asked.Load() > 0 {
			t.Reset(d)
			return
		}
		cancel(fmt.Errorf("did not return within %v", d))
	})
	return ctx, func() { t.Stop(); cancel(nil) }
}

// callTimed is a bounded call whose error says why it ended.
func (m *Manager) callTimed(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c, err := m.conn()
	if err != nil {
		return nil, err
	}
	tctx, done := m.timed(ctx)
	defer done()
	raw, err := c.call(tctx, method, params)
	if err != nil && tctx.Err() != nil && ctx.Err() == nil {
		return nil, context.Cause(tctx)
	}
	return raw, err
}

// oneLine joins a multi-line message (a parser's error with its location
// on the next line) into one line.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
