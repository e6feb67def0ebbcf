package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Spec is one command to run.
type Spec struct {
	Shell   Config
	Command string
	Dir     string
	Env     []string // nil = inherit
}

// Exit is how the shell ended.
type Exit struct {
	Code     int  // exit code; 128+signal number when killed by a signal
	Signaled bool // killed by a signal
}

// ErrNoDir is returned when the working directory does not exist.
var ErrNoDir = errors.New("working directory does not exist")

// drainGrace is how long output is still read after the shell exits while a
// background child keeps the pipe open. Output the shell itself wrote is
// already in the pipe by then and is read in microseconds.
const drainGrace = 50 * time.Millisecond

// Run starts spec in its own process group with stdin from the null device
// and stdout+stderr merged into one pipe in arrival order, calling onData
// with each chunk (from one goroutine; never after Run returns). When ctx is
// done the whole process tree is killed and ctx's error is returned with the
// exit. Run returns as soon as the shell exits, even when a backgrounded
// child still holds the output pipe.
func Run(ctx context.Context, spec Spec, onData func([]byte)) (Exit, error) {
	if st, err := os.Stat(spec.Dir); err != nil || !st.IsDir() {
		return Exit{}, fmt.Errorf("%w: %s", ErrNoDir, spec.Dir)
	}
	if err := ctx.Err(); err != nil {
		return Exit{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return Exit{}, fmt.Errorf("create pipe: %w", err)
	}
	args := append(append([]string(nil), spec.Shell.Args...), spec.Command)
	cmd := exec.Command(spec.Shell.Path, args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.WaitDelay = time.Second
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return Exit{}, fmt.Errorf("start %s: %w", spec.Shell.Path, err)
	}
	w.Close() // the children hold the only write ends now

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 64*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 && onData != nil {
				onData(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var waitErr, ctxErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		ctxErr = ctx.Err()
		killTree(cmd.Process.Pid)
		waitErr = <-waitDone
	}
	if ctxErr == nil && ctx.Err() != nil {
		// cancelled right as the shell exited: still take the tree down
		ctxErr = ctx.Err()
		killTree(cmd.Process.Pid)
	}
	select {
	case <-readerDone:
	case <-time.After(drainGrace):
		_ = r.SetReadDeadline(time.Now())
		<-readerDone
	}
	r.Close()
	ex := exitOf(cmd, waitErr)
	return ex, ctxErr
}

func exitOf(cmd *exec.Cmd, waitErr error) Exit {
	st := cmd.ProcessState
	if st == nil {
		return Exit{Code: 1}
	}
	if sig, ok := signalOf(st); ok {
		return Exit{Code: 128 + sig, Signaled: true}
	}
	if c := st.ExitCode(); c >= 0 {
		return Exit{Code: c}
	}
	_ = waitErr
	return Exit{Code: 1}
}
