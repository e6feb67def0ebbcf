package app

import (
	"context"
	"errors"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// UserShell runs the person's shell commands (!cmd, RPC bash); it is no
// part of the runtime core: the composition root builds it over the seam
// and hands it to the front ends.
type UserShell struct {
	Hooks *hooks.Set // user_bash handlers may answer a command (nil: none)
	Cwd   string
	// Exec runs a command in a shell (nil: none configured).
	Exec func(ctx context.Context, command string, onChunk func(string)) (BashResult, error)
}

// Run runs command without recording it, unless a user_bash handler
// answers it. Cancelling ctx stops it (the front end's abort-bash key or
// command). The caller stores the outcome with RecordBash when the agent
// is idle.
func (s UserShell) Run(ctx context.Context, command string, exclude bool, onChunk func(string)) (BashResult, error) {
	if s.Hooks != nil {
		if out, ok := s.Hooks.RunUserBash(ctx, hooks.UserBash{Command: command, ExcludeFromContext: exclude, Cwd: s.Cwd}); ok {
			return BashResult{Output: out.Output, ExitCode: out.ExitCode}, nil
		}
	}
	if s.Exec == nil {
		return BashResult{}, errors.New("bash: no shell configured")
	}
	return s.Exec(ctx, command, onChunk)
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
