package llamarouter

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
)

// fakeRunner "starts" llama-server by serving the fake router's handler
// on the requested port.
type fakeRunner struct {
	handler http.Handler
	path    string // "" = not on PATH
	exit    bool   // the process exits at once

	mu      sync.Mutex
	args    []string
	stopped int
}

type fakeProc struct {
	ln     net.Listener
	exited chan struct{}
	once   sync.Once
	r      *fakeRunner
}

func (p *fakeProc) Exited() <-chan struct{} { return p.exited }

func (p *fakeProc) Stop(time.Duration) error {
	p.once.Do(func() {
		p.r.mu.Lock()
		p.r.stopped++
		p.r.mu.Unlock()
		if p.ln != nil {
			p.ln.Close()
		}
		close(p.exited)
	})
	return nil
}

func (r *fakeRunner) LookPath() (string, error) {
	if r.path == "" {
		return "", errors.New("not found")
	}
	return r.path, nil
}

func (r *fakeRunner) Start(path string, args []string, logFile string) (Process, error) {
	r.mu.Lock()
	r.args = append([]string{path}, args...)
	r.mu.Unlock()
	p := &fakeProc{exited: make(chan struct{}), r: r}
	if r.exit {
		os.WriteFile(logFile, []byte("loading\nerror: --models-dir: no GGUF files\n"), 0o644)
		close(p.exited)
		return p, nil
	}
	port := args[len(args)-1]
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return nil, err
	}
	p.ln = ln
	go http.Serve(ln, r.handler)
	return p, nil
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).AddrPort().String()
}

type setup struct {
	m        *Manager
	cmds     *commands.Registry
	seam     *hooks.Set
	refreshN int
}

func newManager(t *testing.T, root string, r Runner, home string) *setup {
	t.Helper()
	s := &setup{cmds: commands.New(), seam: hooks.New()}
	m, err := Register(s.cmds, s.seam, Options{Root: root, AgentDir: t.TempDir(), Home: home, Runner: r, Poll: 20 * time.Millisecond,
		StartTimeout: 20 * time.Second, Refresh: func(context.Context) error { s.refreshN++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	s.m = m
	return s
}

func (s *setup) run(t *testing.T, line string) (string, error) {
	t.Helper()
	out, handled, err := s.cmds.Run(context.Background(), line)
	if !handled {
		t.Fatalf("%s not handled", line)
	}
	return out.Text, err
}

// runWatching runs line while reading the status line, and returns the
// distinct status texts seen.
func (s *setup) runWatching(t *testing.T, line string) (string, error, []string) {
	t.Helper()
	type res struct {
		out string
		err error
	}
	done := make(chan res, 1)
	go func() {
		out, err := s.run(t, line)
		done <- res{out, err}
	}()
	var seen []string
	for {
		select {
		case r := <-done:
			return r.out, r.err, seen
		default:
		}
		if l, _ := s.seam.RunStatus(context.Background()); l != "" && (len(seen) == 0 || seen[len(seen)-1] != l) {
			seen = append(seen, l)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestListLoadUnloadDownload(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-4b", Status: "unloaded"}, {ID: "gemma-3-1b", Status: "loaded"}, {ID: "huge-70b", Status: "unloaded"}})
	defer srv.Close()
	srv.RefuseLoad("huge-70b")
	s := newManager(t, srv.URL, &fakeRunner{}, t.TempDir())

	out, err := s.run(t, "/llama")
	if err != nil || !strings.Contains(out, "- qwen3-4b: unloaded\n- gemma-3-1b: loaded\n- huge-70b: unloaded") || !strings.Contains(out, "("+"running)") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err, seen := s.runWatching(t, "/llama load qwen3-4b")
	if err != nil || out != "Loaded qwen3-4b; select it with /model llama.cpp/qwen3-4b." || s.refreshN != 1 {
		t.Fatalf("load: %v %q refresh %d", err, out, s.refreshN)
	}
	if len(seen) == 0 || seen[0] != "llama.cpp: loading qwen3-4b…" {
		t.Errorf("status while loading: %q", seen)
	}
	if l, _ := s.seam.RunStatus(context.Background()); l != "" {
		t.Errorf("status after load %q", l)
	}
	if out, _ := s.run(t, "/llama load qwen3-4b"); out != "qwen3-4b is already loaded." {
		t.Errorf("second load %q", out)
	}
	// A router that refuses a model: the error says so, with its exit code.
	if _, err := s.run(t, "/llama load huge-70b"); err == nil || !strings.Contains(err.Error(), "could not load huge-70b (exit code 1)") {
		t.Errorf("refused load: %v", err)
	}
	if _, err := s.run(t, "/llama load nope"); err == nil || !strings.Contains(err.Error(), `no model "nope"`) {
		t.Errorf("unknown model: %v", err)
	}
	if out, err := s.run(t, "/llama unload gemma-3-1b"); err != nil || out != "Unloaded gemma-3-1b." || s.refreshN != 2 {
		t.Errorf("unload: %v %q", err, out)
	}
	out, err, seen = s.runWatching(t, "/llama download unsloth/Qwen3-0.6B-GGUF:Q4_K_M")
	if err != nil || !strings.HasPrefix(out, "Downloaded unsloth/Qwen3-0.6B-GGUF:Q4_K_M") {
		t.Fatalf("download: %v %q", err, out)
	}
	progress := false
	for _, l := range seen {
		progress = progress || (strings.HasPrefix(l, "llama.cpp: downloading unsloth/Qwen3-0.6B-GGUF:Q4_K_M ") && strings.Contains(l, "% (") && strings.Contains(l, "/ 600.0 MiB)"))
	}
	if !progress {
		t.Errorf("no download progress in the status line: %q", seen)
	}
	if _, err := s.run(t, "/llama download qwen"); err == nil || !strings.Contains(err.Error(), "owner/repo") {
		t.Errorf("bad download ref: %v", err)
	}
	if _, err := s.run(t, "/llama frob"); err == nil || !strings.Contains(err.Error(), "usage: /llama") {
		t.Errorf("unknown sub: %v", err)
	}
}

// /llama start runs llama-server exactly as docs/llama-cpp.md does, waits
// for it to answer, and the quit stops it.
func TestStartAndStopOnQuit(t *testing.T) {
	fake := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-4b", Status: "unloaded"}})
	defer fake.Close()
	addr := freePort(t)
	root := "http://" + addr
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, "models"), 0o755)
	r := &fakeRunner{handler: fake.Config.Handler, path: "/opt/llama/bin/llama-server"}
	s := newManager(t, root, r, home)

	if _, err := s.run(t, "/llama"); err == nil || !strings.Contains(err.Error(), "no llama.cpp server answers at "+root+": /llama start") {
		t.Fatalf("list without a server: %v", err)
	}
	out, err := s.run(t, "/llama start")
	if err != nil || !strings.Contains(out, "Started a llama.cpp router at "+root) {
		t.Fatalf("start: %v %q", err, out)
	}
	_, port, _ := net.SplitHostPort(addr)
	want := []string{"/opt/llama/bin/llama-server", "--models-dir", filepath.Join(home, "models"), "--no-models-autoload", "--jinja", "--host", "127.0.0.1", "--port", port}
	if !reflect.DeepEqual(r.args, want) {
		t.Errorf("args %q\nwant %q", r.args, want)
	}
	if out, _ := s.run(t, "/llama"); !strings.Contains(out, "(started by relay)") || !strings.Contains(out, "- qwen3-4b: unloaded") {
		t.Errorf("list: %q", out)
	}
	if _, err := s.run(t, "/llama start"); err == nil {
		t.Error("second start accepted")
	}
	s.seam.SessionShutdown.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonNew})
	if r.stopped != 0 {
		t.Fatal("/new stopped the router")
	}
	s.seam.SessionShutdown.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonQuit})
	if r.stopped != 1 {
		t.Fatal("quit did not stop the router relay started")
	}
	if _, err := s.run(t, "/llama stop"); err == nil || !strings.Contains(err.Error(), "never stops one it did not start") {
		t.Errorf("stop after quit: %v", err)
	}
}

func TestStartRefusals(t *testing.T) {
	home := t.TempDir()
	root := "http://" + freePort(t)
	for _, tc := range []struct {
		name, root, arg string
		runner          *fakeRunner
		err             string
	}{
		{"not on PATH", root, "", &fakeRunner{}, "llama-server is not on PATH"},
		{"models dir missing", root, "~/nope", &fakeRunner{path: "llama-server"}, "models directory " + filepath.Join(home, "nope") + " does not exist"},
		{"remote server", "http://10.1.2.3:8080", "", &fakeRunner{path: "llama-server"}, "only on this machine; LLAMA_BASE_URL is http://10.1.2.3:8080"},
		{"router exits", root, home, &fakeRunner{path: "llama-server", exit: true}, "llama-server exited before answering; see "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newManager(t, tc.root, tc.runner, home)
			_, err := s.run(t, strings.TrimSpace("/llama start "+tc.arg))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
			if tc.runner.exit && !strings.Contains(err.Error(), "error: --models-dir: no GGUF files") {
				t.Errorf("the log tail is missing: %v", err)
			}
		})
	}
	// A server that already answers is used, not started again.
	srv := llamacpptest.New(true, nil)
	defer srv.Close()
	s := newManager(t, srv.URL, &fakeRunner{path: "llama-server"}, home)
	if _, err := s.run(t, "/llama start"); err == nil || !strings.Contains(err.Error(), "already answers") {
		t.Errorf("start over a running server: %v", err)
	}
}
