package ext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// message is one line of the protocol in either direction. A message with
// Method is a request (ID set) or a notification (no ID); one without
// answers a request of the other side.
type message struct {
	ID     *int64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
}

func (e *wireError) Error() string { return e.Message }

// errHostGone is returned for calls the host can no longer answer.
var errHostGone = errors.New("extension host exited")

// maxLine bounds one protocol line from the host (a context event's
// messages, a tool result): a host that sends more is treated as broken.
const maxLine = 64 << 20

// conn is one running host process and the JSON-RPC exchange with it.
type conn struct {
	cmd   *exec.Cmd
	w     *os.File // relay -> host (the host's fd 3)
	wmu   sync.Mutex
	next  atomic.Int64
	mu    sync.Mutex
	calls map[int64]chan message
	done  chan struct{} // closed when the reader stops
	err   error         // why it stopped (under mu)
	tail  *tailBuffer   // the host's recent stderr, for crash reports
	// onRequest receives the host's requests and notifications (ID nil
	// for notifications) on the reader goroutine, in order; it must not
	// block.
	onRequest func(m message)
}

// startConn starts node on the host script. The host reads fd 3 and
// writes fd 4; its stdout and stderr go to log (and the last few KiB are
// kept for error messages).
func startConn(node, script string, env []string, log io.Writer, onRequest func(message)) (*conn, error) {
	toHostR, toHostW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromHostR, fromHostW, err := os.Pipe()
	if err != nil {
		toHostR.Close()
		toHostW.Close()
		return nil, err
	}
	c := &conn{w: toHostW, calls: map[int64]chan message{}, done: make(chan struct{}), tail: &tailBuffer{max: 8 << 10}, onRequest: onRequest}
	var sink io.Writer = c.tail
	if log != nil {
		sink = io.MultiWriter(c.tail, log)
	}
	cmd := exec.Command(node, script)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = sink, sink
	cmd.ExtraFiles = []*os.File{toHostR, fromHostW}
	// Own process group: a terminal's Ctrl+C reaches relay, which decides
	// when the host ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		toHostR.Close()
		toHostW.Close()
		fromHostR.Close()
		fromHostW.Close()
		return nil, fmt.Errorf("start extension host: %w", err)
	}
	toHostR.Close()
	fromHostW.Close()
	c.cmd = cmd
	go c.read(fromHostR)
	return c, nil
}

func (c *conn) read(r *os.File) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(br, maxLine)
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m message
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Method != "" {
			if c.onRequest != nil {
				c.onRequest(m)
			}
			continue
		}
		if m.ID == nil {
			continue
		}
		c.mu.Lock()
		ch := c.calls[*m.ID]
		delete(c.calls, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	werr := c.cmd.Wait()
	c.mu.Lock()
	if err == io.EOF {
		err = nil
	}
	c.err = errors.Join(err, werr)
	pending := c.calls
	c.calls = nil
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	close(c.done)
}

// readLine reads one newline-terminated line of at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			return nil, fmt.Errorf("protocol line longer than %d bytes", max)
		}
		if err == nil {
			if buf == nil {
				return chunk, nil
			}
			return append(buf, chunk...), nil
		}
		if err == bufio.ErrBufferFull {
			buf = append(buf, chunk...)
			continue
		}
		if len(buf)+len(chunk) > 0 && err == io.EOF {
			return append(buf, chunk...), nil
		}
		return nil, err
	}
}

func (c *conn) write(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// call sends a request and waits for its answer, ctx's end or the host's.
// When ctx ends first, the host is told to abort the request's signal.
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.callWith(ctx, method, params, nil)
}

// callWith is call with a hook that learns the request id before it is
// sent (tool calls route their streamed updates by it).
func (c *conn) callWith(ctx context.Context, method string, params any, onID func(int64)) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	id := c.next.Add(1)
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.calls == nil {
		c.mu.Unlock()
		return nil, c.goneErr()
	}
	c.calls[id] = ch
	c.mu.Unlock()
	if onID != nil {
		onID(id)
	}
	if err := c.write(message{ID: &id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return nil, c.goneErr()
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, c.goneErr()
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		c.forget(id)
		_ = c.notify("cancel", map[string]int64{"req": id})
		return nil, ctx.Err()
	}
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	if c.calls != nil {
		delete(c.calls, id)
	}
	c.mu.Unlock()
}

func (c *conn) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(message{Method: method, Params: raw})
}

// reply answers a host request.
func (c *conn) reply(id *int64, result any, err error) {
	if id == nil {
		return
	}
	if err != nil {
		_ = c.write(message{ID: id, Error: &wireError{Message: err.Error()}})
		return
	}
	raw, merr := json.Marshal(result)
	if merr != nil {
		_ = c.write(message{ID: id, Error: &wireError{Message: merr.Error()}})
		return
	}
	_ = c.write(message{ID: id, Result: raw})
}

// goneErr describes why the host stopped, with its last stderr lines.
func (c *conn) goneErr() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	var extra string
	if err != nil {
		extra = " (" + err.Error() + ")"
	}
	if t := strings.TrimSpace(c.tail.String()); t != "" {
		extra += ": " + lastLines(t, 5)
	}
	return fmt.Errorf("%w%s", errHostGone, extra)
}

// close ends the host: the pipe closes (the host exits on EOF), then
// SIGTERM and SIGKILL if it lingers.
func (c *conn) close() {
	c.wmu.Lock()
	c.w.Close()
	c.wmu.Unlock()
	select {
	case <-c.done:
		return
	case <-time.After(500 * time.Millisecond):
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
