//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// endless is `yes`: a stdin that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[i%2]
	}
	return len(p), nil
}

// TestHostileInputs: paths that are not regular files (a FIFO without a
// writer, /dev/zero, a directory) and inputs over the documented limits end
// with exit 1 and a message naming the input, within the deadline, and
// without calling the model.
func TestHostileInputs(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}, Repeat: true}, nil)
	dir := filepath.Dir(e.cwd)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.log")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(100 << 20) // sparse: 100 MB of text (NULs sniff as text)
	f.Close()
	zeroLink := filepath.Join(dir, "zero.jsonl")
	os.Symlink("/dev/zero", zeroLink)
	tests := []struct {
		name  string
		stdin io.Reader
		args  []string
		want  string
	}{
		{"--session FIFO", nil, []string{"-p", model, "--session", fifo, "hi"}, fifo + " is a named pipe (FIFO), not a regular file"},
		{"--session /dev/zero link", nil, []string{"-p", model, "--session", zeroLink, "hi"}, zeroLink + " is a character device, not a regular file"},
		{"@FIFO", nil, []string{"-p", model, "@" + fifo, "hi"}, fifo + " is a named pipe (FIFO), not a regular file"},
		{"@/dev/zero", nil, []string{"-p", model, "@/dev/zero", "hi"}, "/dev/zero is a character device, not a regular file"},
		{"@100 MB file", nil, []string{"-p", model, "@" + huge, "hi"}, "@" + huge + ": too large (100 MiB; the limit for a text file is 4 MiB)"},
		{"--append-system-prompt FIFO", nil, []string{"-p", model, "--append-system-prompt", fifo, "hi"}, fifo + " is a named pipe (FIFO), not a regular file"},
		{"--system-prompt /dev/zero", nil, []string{"-p", model, "--system-prompt", "/dev/zero", "hi"}, "/dev/zero is a character device, not a regular file"},
		{"--export FIFO", nil, []string{"--export", fifo, filepath.Join(dir, "out.html")}, fifo + " is a named pipe (FIFO), not a regular file"},
		{"--export /dev/zero", nil, []string{"--export", "/dev/zero", filepath.Join(dir, "out.html")}, "/dev/zero is a character device, not a regular file"},
		{"sessions check FIFO", nil, []string{"sessions", "check", fifo}, fifo + " is a named pipe (FIFO), not a regular file"},
		{"sessions check /dev/zero", nil, []string{"sessions", "check", "/dev/zero"}, "/dev/zero is a character device, not a regular file"},
		{"endless stdin", endless{}, []string{"-p", model, "hi"}, "piped stdin is larger than 4194304 bytes (4 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.fake.Requests())
			out, errOut, code := runTimed(t, e.cmd(tc.stdin, tc.args...), time.Minute)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d stdout %q stderr %q; want exit 1 and %q", code, out, errOut, tc.want)
			}
			if n := len(e.fake.Requests()) - before; n != 0 {
				t.Errorf("the model was called %d times", n)
			}
		})
	}
}

// TestHostileConfigFiles: settings.json and models.json that are a device
// or a FIFO are reported naming the file; relay goes on without them.
func TestHostileConfigFiles(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}, Repeat: true}, nil)
	settings := filepath.Join(e.agentDir, "settings.json")
	os.Remove(settings)
	os.Symlink("/dev/zero", settings)
	out, errOut, code := runTimed(t, e.cmd(nil, "-p", model, "hi"), time.Minute)
	if code != 0 || out != "answered\n" || !strings.Contains(errOut, settings+": cannot read settings: it is a character device, not a regular file") {
		t.Errorf("settings.json -> /dev/zero: exit %d stdout %q stderr %q", code, out, errOut)
	}
	os.Remove(settings)
	models := filepath.Join(e.agentDir, "models.json")
	os.Remove(models)
	if err := syscall.Mkfifo(models, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ = runTimed(t, e.cmd(nil, "-p", model, "hi"), time.Minute)
	if !strings.Contains(errOut, models+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("models.json FIFO: stderr %q", errOut)
	}
}

// TestRPCSwitchSessionHostile: switch_session to a FIFO or a device answers
// an error with the request id and keeps the connection.
func TestRPCSwitchSessionHostile(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}, Repeat: true}, nil)
	fifo := filepath.Join(filepath.Dir(e.cwd), "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r := rpcStart(e, model)
	for i, p := range map[string]string{fifo: "named pipe (FIFO)", "/dev/zero": "character device"} {
		msg := r.fail("s-"+i, `{"type":"switch_session","sessionPath":`+jsonString(i)+`}`)
		if !strings.Contains(msg, i+" is a "+p+", not a regular file") {
			t.Errorf("switch_session %s: %q", i, msg)
		}
	}
	r.promptSettled("p", "still works")
	if code := r.exitCode(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestUntrustedProjectSettingsHostile: a cloned repository whose
// .relay/settings.json is a link to /dev/zero, a FIFO or a huge file is
// not read whole before the trust decision (only sessionDir is read
// before trust, and that read is bounded): relay answers with a warning
// naming the file.
func TestUntrustedProjectSettingsHostile(t *testing.T) {
	for _, kind := range []string{"dev-zero", "fifo", "huge"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}, Repeat: true}, nil)
			p := filepath.Join(e.cwd, ".relay", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			want := ""
			switch kind {
			case "dev-zero":
				os.Symlink("/dev/zero", p)
				want = "it is a character device, not a regular file"
			case "fifo":
				syscall.Mkfifo(p, 0o644)
				want = "it is a named pipe (FIFO), not a regular file"
			case "huge":
				f, _ := os.Create(p)
				f.Truncate(1 << 30)
				f.Close()
				want = "too large (1073741824 bytes, limit 4194304)"
			}
			out, errOut, code := runTimed(t, e.cmd(nil, "-p", model, "hi"), time.Minute)
			if code != 0 || out != "answered\n" || !strings.Contains(errOut, p+": cannot read settings: "+want) {
				t.Fatalf("exit %d stdout %q stderr %q; want the answer and a warning naming %s", code, out, errOut, p)
			}
			if !strings.Contains(errOut, "project not trusted") {
				t.Errorf("the project was not treated as untrusted: %q", errOut)
			}
		})
	}
}
