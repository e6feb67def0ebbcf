package app

import (
	"context"
	"errors"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// RunShell runs a user shell command (!cmd, RPC bash) without recording
// it: a user_bash handler may answer it instead. Cancelling ctx stops it
// (the front end's abort-bash key or command). The caller stores the
// outcome with RecordBash when the agent is idle.
func (r *Runtime) RunShell(ctx context.Context, command string, exclude bool, onChunk func(string)) (BashResult, error) {
	return r.shell(ctx, command, exclude, onChunk)
}

// RecordBash stores the outcome of a user shell command in s as a
// bashExecution message; unless exclude is set it reaches the model with
// the next prompt. Call it while the agent is idle: appending in the
// middle of a run would split an assistant message from its tool results.
func RecordBash(s *session.Manager, command string, res BashResult, exclude bool) error {
	msg := &llm.BashExecutionMessage{Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
		Truncated: res.Truncated, FullOutputPath: res.FullOutputPath, ExcludeFromContext: exclude, Timestamp: time.Now().UnixMilli()}
	_, err := s.AppendMessage(msg)
	return err
}

// shell runs a user shell command, unless a user_bash handler answers it.
func (r *Runtime) shell(ctx context.Context, command string, exclude bool, onChunk func(string)) (BashResult, error) {
	if out, ok := r.hooks.RunUserBash(ctx, hooks.UserBash{Command: command, ExcludeFromContext: exclude, Cwd: r.cfg.Cwd}); ok {
		return BashResult{Output: out.Output, ExitCode: out.ExitCode}, nil
	}
	if r.cfg.Shell == nil {
		return BashResult{}, errors.New("bash: no shell configured")
	}
	return r.cfg.Shell(ctx, command, onChunk)
}
