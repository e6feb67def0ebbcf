// Package llamarouter is /llama: it manages a llama.cpp router
// (llama-server without a model, serving every GGUF of a models
// directory and loading them on request). It starts one on this machine
// when llama-server is on PATH and none answers, lists the router's
// models, loads, unloads and downloads them with progress in the status
// line, and stops the router on exit when relay started it.
package llamarouter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
)

// Options configure /llama.
type Options struct {
	// Root and APIKey are the llama.cpp provider's server (LLAMA_BASE_URL,
	// LLAMA_API_KEY), normalized.
	Root, APIKey string
	// AgentDir holds llama-server.log of a router relay started.
	AgentDir string
	// Home is the user's home directory (the default models dir ~/models).
	Home string
	// Runner starts llama-server; nil means the real one (runner.go).
	Runner Runner
	// Refresh re-reads the llama.cpp models of the model registry after a
	// load or unload, so /model lists what is loaded.
	Refresh func(ctx context.Context) error
	// Poll is the interval of state polling (0 = 250 ms).
	Poll time.Duration
	// StartTimeout bounds the wait for a started router (0 = 60 s); load
	// and download waits are bounded by LoadTimeout (0 = 30 min).
	StartTimeout, LoadTimeout time.Duration
}

// Runner starts and stops the router process.
type Runner interface {
	// LookPath finds llama-server ("" and an error when absent).
	LookPath() (string, error)
	// Start runs path with args, output appended to logFile. exited is
	// closed when the process ends.
	Start(path string, args []string, logFile string) (p Process, err error)
}

// Process is a started router.
type Process interface {
	Exited() <-chan struct{}
	Stop(timeout time.Duration) error
}

// Manager is /llama's state: the router relay started, and the operation
// under way for the status line.
type Manager struct {
	o      Options
	client *llamacpp.Client

	mu       sync.Mutex
	proc     Process
	progress string
}

// Register adds /llama to cmds and its status and quit handling to h.
func Register(cmds *commands.Registry, h *hooks.Set, o Options) (*Manager, error) {
	if o.Runner == nil {
		o.Runner = execRunner{}
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = time.Minute
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 30 * time.Minute
	}
	m := &Manager{o: o, client: &llamacpp.Client{Root: o.Root, APIKey: o.APIKey}}
	h.Status.On("llama", func(context.Context, *hooks.StatusQuery) (hooks.StatusResult, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return hooks.StatusResult{Line: m.progress}, nil
	})
	h.SessionShutdown.On("llama", func(_ context.Context, e *hooks.SessionChange) (hooks.None, error) {
		if e.Reason == hooks.ReasonQuit {
			m.Close()
		}
		return hooks.None{}, nil
	})
	err := cmds.Register(commands.Command{Name: "llama", Source: commands.Builtin,
		Description: "llama.cpp router: list, start, load, unload, download, stop",
		Complete:    complete,
		Run: func(ctx context.Context, args string) (commands.Output, error) {
			text, err := m.Run(ctx, args)
			return commands.Output{Text: text}, err
		}})
	return m, err
}

const usage = "usage: /llama [list|start [models dir]|load <model>|unload <model>|download <owner/repo[:quant]>|stop]"

func complete(prefix string) []commands.Completion {
	var out []commands.Completion
	for _, s := range []string{"list", "start", "load", "unload", "download", "stop"} {
		if strings.HasPrefix(s, prefix) {
			out = append(out, commands.Completion{Value: s})
		}
	}
	return out
}

// Run is /llama [sub] [arg].
func (m *Manager) Run(ctx context.Context, args string) (string, error) {
	sub, arg, _ := strings.Cut(strings.TrimSpace(args), " ")
	arg = strings.TrimSpace(arg)
	switch sub {
	case "", "list":
		return m.list(ctx)
	case "start":
		return m.start(ctx, arg)
	case "stop":
		return m.stop()
	case "load", "unload", "download":
		if arg == "" {
			return "", errors.New(usage)
		}
		switch sub {
		case "load":
			return m.load(ctx, arg)
		case "unload":
			return m.unload(ctx, arg)
		}
		return m.download(ctx, arg)
	}
	return "", fmt.Errorf("unknown /llama command %q; %s", sub, usage)
}

func (m *Manager) setProgress(s string) {
	m.mu.Lock()
	m.progress = s
	m.mu.Unlock()
}

func (m *Manager) started() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc != nil
}

// list shows the router's models and their state.
func (m *Manager) list(ctx context.Context) (string, error) {
	lctx, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
	defer cancel()
	infos, err := m.client.RouterModels(lctx, false)
	if err != nil {
		var down *llamacpp.DownError
		if errors.As(err, &down) {
			hint := "start llama-server (see docs/llama-cpp.md)"
			if _, lerr := m.o.Runner.LookPath(); lerr == nil {
				hint = "/llama start [models dir] runs a router"
			}
			return "", fmt.Errorf("no llama.cpp server answers at %s: %s", m.o.Root, hint)
		}
		return "", err
	}
	var b strings.Builder
	who := "running"
	if m.started() {
		who = "started by relay"
	}
	fmt.Fprintf(&b, "llama.cpp router at %s (%s)\n", m.o.Root, who)
	if len(infos) == 0 {
		b.WriteString("No models: put GGUF files in the models directory, or /llama download <owner/repo[:quant]>.")
		return b.String(), nil
	}
	for _, i := range infos {
		state := i.State()
		switch {
		case i.Status.Failed:
			state += ", failed"
			if i.Status.ExitCode != nil {
				state += fmt.Sprintf(" (exit code %d)", *i.Status.ExitCode)
			}
		case state == llamacpp.StatusDownloading:
			if done, total := i.DownloadProgress(); total > 0 {
				state += " " + percent(done, total)
			}
		}
		fmt.Fprintf(&b, "- %s: %s\n", i.ID, state)
	}
	b.WriteString("/llama load <model> loads one; loaded models appear in /model.")
	return b.String(), nil
}

// start runs a router on this machine, as docs/llama-cpp.md starts it:
// llama-server without a model, --models-dir, --no-models-autoload,
// --jinja, loopback host and the provider URL's port.
func (m *Manager) start(ctx context.Context, dir string) (string, error) {
	if m.started() {
		return "", fmt.Errorf("relay already runs a llama.cpp router at %s", m.o.Root)
	}
	host, port, err := loopback(m.o.Root)
	if err != nil {
		return "", err
	}
	pctx, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
	_, perr := m.client.Models(pctx)
	cancel()
	if perr == nil {
		return "", fmt.Errorf("a llama.cpp server already answers at %s; /llama lists its models", m.o.Root)
	}
	path, err := m.o.Runner.LookPath()
	if err != nil {
		return "", errors.New("llama-server is not on PATH: install llama.cpp (https://github.com/ggml-org/llama.cpp) or start a router yourself")
	}
	if dir == "" {
		dir = filepath.Join(m.o.Home, "models")
	} else if strings.HasPrefix(dir, "~/") {
		dir = filepath.Join(m.o.Home, dir[2:])
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("models directory %s does not exist: create it and put GGUF files there, or name another with /llama start <dir>", dir)
	}
	args := []string{"--models-dir", dir, "--no-models-autoload", "--jinja", "--host", host, "--port", port}
	logFile := filepath.Join(m.o.AgentDir, "llama-server.log")
	proc, err := m.o.Runner.Start(path, args, logFile)
	if err != nil {
		return "", fmt.Errorf("start llama-server: %w", err)
	}
	m.setProgress("llama.cpp: starting the router…")
	defer m.setProgress("")
	wctx, cancel := context.WithTimeout(ctx, m.o.StartTimeout)
	defer cancel()
	for {
		c, cc := context.WithTimeout(wctx, llamacpp.DefaultTimeout)
		_, err := m.client.RouterModels(c, false)
		cc()
		if err == nil {
			break
		}
		select {
		case <-proc.Exited():
			return "", fmt.Errorf("llama-server exited before answering; see %s%s", logFile, tail(logFile))
		case <-wctx.Done():
			_ = proc.Stop(5 * time.Second)
			return "", fmt.Errorf("llama-server did not answer at %s within %s; see %s", m.o.Root, m.o.StartTimeout, logFile)
		case <-time.After(m.o.Poll):
		}
	}
	m.mu.Lock()
	m.proc = proc
	m.mu.Unlock()
	return fmt.Sprintf("Started a llama.cpp router at %s on %s (log %s); relay stops it when it quits.\n/llama lists its models.", m.o.Root, dir, logFile), nil
}

// stop ends the router relay started.
func (m *Manager) stop() (string, error) {
	m.mu.Lock()
	p := m.proc
	m.proc = nil
	m.mu.Unlock()
	if p == nil {
		return "", errors.New("relay started no llama.cpp router in this session (it never stops one it did not start)")
	}
	if err := p.Stop(10 * time.Second); err != nil {
		return "", fmt.Errorf("stop llama-server: %w", err)
	}
	return "Stopped the llama.cpp router.", nil
}

// Close stops the router relay started (on quit).
func (m *Manager) Close() {
	_, _ = m.stop()
}

// find returns the router's entry of id.
func (m *Manager) find(ctx context.Context, id string) (*llamacpp.ModelInfo, error) {
	c, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
	defer cancel()
	infos, err := m.client.RouterModels(c, false)
	if err != nil {
		return nil, err
	}
	for i := range infos {
		if infos[i].ID == id {
			return &infos[i], nil
		}
	}
	return nil, nil
}

// wait polls /models until done says the change of model id (what: the
// change, for errors) is over.
func (m *Manager) wait(ctx context.Context, id, what string, done func(*llamacpp.ModelInfo) (bool, error)) error {
	wctx, cancel := context.WithTimeout(ctx, m.o.LoadTimeout)
	defer cancel()
	defer m.setProgress("")
	for {
		if err := wctx.Err(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		// The first list may still show the state before the change.
		select {
		case <-wctx.Done():
			return fmt.Errorf("%s: %w", what, wctx.Err())
		case <-time.After(m.o.Poll):
		}
		info, err := m.find(wctx, id)
		if err != nil {
			return err
		}
		ok, err := done(info)
		if err != nil || ok {
			return err
		}
	}
}

func (m *Manager) refresh(ctx context.Context) {
	if m.o.Refresh != nil {
		_ = m.o.Refresh(ctx)
	}
}

func (m *Manager) load(ctx context.Context, id string) (string, error) {
	info, err := m.find(ctx, id)
	if err != nil {
		return "", err
	}
	if info == nil {
		return "", fmt.Errorf("the router has no model %q; /llama lists them", id)
	}
	if s := info.State(); s == llamacpp.StatusLoaded || s == llamacpp.StatusSleeping {
		return id + " is already loaded.", nil
	}
	if err := m.client.Load(ctx, id); err != nil {
		return "", err
	}
	m.setProgress("llama.cpp: loading " + id + "…")
	err = m.wait(ctx, id, "load "+id, func(i *llamacpp.ModelInfo) (bool, error) {
		switch {
		case i == nil:
			return false, fmt.Errorf("the router dropped %s while loading it", id)
		case i.Status.Failed:
			code := ""
			if i.Status.ExitCode != nil {
				code = fmt.Sprintf(" (exit code %d)", *i.Status.ExitCode)
			}
			return false, fmt.Errorf("the router could not load %s%s: lower -c, unload another model, or see its log", id, code)
		case i.State() == llamacpp.StatusLoaded:
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return "", err
	}
	m.refresh(ctx)
	return "Loaded " + id + "; select it with /model llama.cpp/" + id + ".", nil
}

func (m *Manager) unload(ctx context.Context, id string) (string, error) {
	if err := m.client.Unload(ctx, id); err != nil {
		return "", err
	}
	m.setProgress("llama.cpp: unloading " + id + "…")
	err := m.wait(ctx, id, "unload "+id, func(i *llamacpp.ModelInfo) (bool, error) {
		return i == nil || i.State() == llamacpp.StatusUnloaded, nil
	})
	if err != nil {
		return "", err
	}
	m.refresh(ctx)
	return "Unloaded " + id + ".", nil
}

func (m *Manager) download(ctx context.Context, ref string) (string, error) {
	if !strings.Contains(ref, "/") {
		return "", fmt.Errorf("download %q: name a Hugging Face repository, owner/repo[:quant]", ref)
	}
	if err := m.client.Download(ctx, ref); err != nil {
		return "", err
	}
	m.setProgress("llama.cpp: downloading " + ref + "…")
	seen := false
	err := m.wait(ctx, ref, "download "+ref, func(i *llamacpp.ModelInfo) (bool, error) {
		if i == nil {
			return false, nil
		}
		if i.State() == llamacpp.StatusDownloading {
			seen = true
			if done, total := i.DownloadProgress(); total > 0 {
				m.setProgress(fmt.Sprintf("llama.cpp: downloading %s %s (%s / %s)", ref, percent(done, total), bytes(done), bytes(total)))
			}
			return false, nil
		}
		if i.Status.Failed {
			return false, fmt.Errorf("the router could not download %s (does it need HF_TOKEN?)", ref)
		}
		return seen || i.State() != "", nil
	})
	if err != nil {
		return "", err
	}
	c, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
	_, _ = m.client.RouterModels(c, true)
	cancel()
	return "Downloaded " + ref + "; /llama load " + ref + " loads it.", nil
}

// loopback returns the host and port of a server URL on this machine;
// relay starts a router only there.
func loopback(root string) (host, port string, err error) {
	u, err := url.Parse(root)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("llama.cpp server URL %q is not valid", root)
	}
	host, port = u.Hostname(), u.Port()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", "", fmt.Errorf("relay starts a router only on this machine; LLAMA_BASE_URL is %s", root)
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

func percent(done, total int64) string {
	return fmt.Sprintf("%d%%", done*100/total)
}

func bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// tail returns the last lines of a log, for an error.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 2048)
	fi, _ := f.Stat()
	off := int64(0)
	if fi != nil && fi.Size() > int64(len(buf)) {
		off = fi.Size() - int64(len(buf))
	}
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimSpace(string(buf[:n])), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if len(lines) == 0 || lines[0] == "" {
		return ""
	}
	return ":\n" + strings.Join(lines, "\n")
}
