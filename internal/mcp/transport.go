package mcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/config"
)

// maxMessageBytes bounds one inbound JSON-RPC message (a stdio line or an
// SSE event). It is well above the SDK's 16 MiB default so a 50 MB tool
// result still arrives whole and is cut to the model's limit by us, with the
// full text saved to a file.
const maxMessageBytes = 96 << 20

// stderrTailBytes is how much of a stdio server's stderr is kept for errors.
const stderrTailBytes = 2000

// Stop grace periods: after stdin closes, then after SIGTERM.
var (
	stdinGrace   = 200 * time.Millisecond
	sigtermGrace = time.Second
)

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// stdioProcess is a started stdio server in its own process group.
type stdioProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end
	stdout *os.File // read end
	stderr *tailBuffer
	done   chan struct{}

	closeOnce sync.Once
}

// startStdio starts the server process of cfg in dir with env added to
// base (nil = our environment).
func startStdio(cfg *ServerConfig, cwd string, base []string, env []KV) (*stdioProcess, error) {
	command := homeExpanded(cfg.Command)
	args := make([]string, len(cfg.Args))
	for i, a := range cfg.Args {
		args[i] = homeExpanded(a)
	}
	dir := cwd
	if cfg.Cwd != "" {
		dir = homeExpanded(cfg.Cwd)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
	}
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append([]string(nil), base...)
	for _, kv := range env {
		cmd.Env = append(cmd.Env, kv.Key+"="+kv.Value)
	}
	setProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &stdioProcess{cmd: cmd, stdin: inW, stdout: outR, stderr: &tailBuffer{max: stderrTailBytes}, done: make(chan struct{})}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: %w", command, err)
	}
	// The child holds its own copies; ours would keep EOF from arriving.
	inR.Close()
	outW.Close()
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// transport speaks newline-delimited JSON-RPC over the process's pipes.
func (p *stdioProcess) transport() sdk.Transport {
	return &sdk.IOTransport{Reader: p.stdout, Writer: stdinCloser{p}, MaxLineLength: maxMessageBytes}
}

type stdinCloser struct{ p *stdioProcess }

func (s stdinCloser) Write(b []byte) (int, error) { return s.p.stdin.Write(b) }
func (s stdinCloser) Close() error                { s.p.stop(); return nil }

// exited reports whether the process has exited.
func (p *stdioProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop closes stdin, then sends SIGTERM and finally SIGKILL to the process
// group, so servers started through wrappers (npx, uvx) stop too.
func (p *stdioProcess) stop() { p.halt(stdinGrace) }

// kill is stop without the grace after closing stdin, for a server that
// never finished its handshake: it holds no session worth ending politely.
func (p *stdioProcess) kill() { p.halt(0) }

func (p *stdioProcess) halt(grace time.Duration) {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		wait := func(d time.Duration) bool {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-p.done:
				return true
			case <-t.C:
				return false
			}
		}
		if !wait(grace) {
			signalGroup(p.cmd, false)
			if !wait(sigtermGrace) {
				signalGroup(p.cmd, true)
				wait(sigtermGrace)
			}
		} else {
			// The leader exited; children a wrapper left behind get SIGTERM.
			signalGroup(p.cmd, false)
		}
		p.stdout.Close()
	})
}

// HTTPStatusError is an HTTP response a server sent instead of a JSON-RPC
// answer, for statuses worth another attempt (408, 429, 5xx but 501).
type HTTPStatusError struct {
	Status int
	Body   string
}

func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

func transientStatus(code int) bool {
	return code == 408 || code == 429 || code >= 500 && code != 501 && code <= 599
}

// isTransient reports network failures and transient HTTP statuses.
func isTransient(err error) bool {
	var se *HTTPStatusError
	if errors.As(err, &se) {
		return transientStatus(se.Status)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscallECONNREFUSED)
}

// httpRoundTripper adds the configured headers and turns transient
// statuses into *HTTPStatusError, so retries can tell them apart.
type httpRoundTripper struct {
	base    http.RoundTripper
	headers []KV
}

func (t *httpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for _, h := range t.headers {
		req.Header.Set(h.Key, h.Value)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if transientStatus(resp.StatusCode) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, &HTTPStatusError{Status: resp.StatusCode, Body: strings.TrimSpace(string(body))}
	}
	return resp, nil
}

// httpTransport builds the streamable HTTP transport of cfg.
func httpTransport(cfg *ServerConfig, headers []KV, base http.RoundTripper, oauth oauthHandler) sdk.Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &sdk.StreamableClientTransport{
		Endpoint:     cfg.URL,
		HTTPClient:   &http.Client{Transport: &httpRoundTripper{base: base, headers: headers}},
		MaxEventSize: maxMessageBytes,
		MaxRetries:   2,
	}
	if oauth != nil {
		t.OAuthHandler = oauth
	}
	return t
}

// homeExpanded is p with a leading ~ expanded (p unchanged when the home
// directory is unknown).
func homeExpanded(p string) string {
	if e, err := config.ExpandHome(p); err == nil {
		return e
	}
	return p
}
