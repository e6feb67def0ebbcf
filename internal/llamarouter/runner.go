package llamarouter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// execRunner runs the real llama-server: its own process group, so
// stopping it stops what it spawned (the router runs one server process
// per loaded model), output appended to a log file.
type execRunner struct{}

func (execRunner) LookPath() (string, error) { return exec.LookPath("llama-server") }

func (execRunner) Start(path string, args []string, logFile string) (Process, error) {
	if err := os.MkdirAll(filepath.Dir(logFile), 0o755); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(p.exited)
	}()
	return p, nil
}

type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (p *proc) Exited() <-chan struct{} { return p.exited }

// Stop asks the router to end (SIGTERM to its group), then kills it after
// timeout.
func (p *proc) Stop(timeout time.Duration) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := terminate(p.cmd); err != nil {
		return err
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(timeout):
		kill(p.cmd)
		select {
		case <-p.exited:
			return nil
		case <-time.After(5 * time.Second):
			return fmt.Errorf("llama-server (pid %d) did not exit", p.cmd.Process.Pid)
		}
	}
}
