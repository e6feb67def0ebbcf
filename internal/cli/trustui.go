package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/hooks"
)

// lineUI is the UI project_trust handlers get in the TUI before the TUI
// starts (the trust decision comes first): select, confirm, input and
// notify as numbered choices and lines on the terminal, as the built-in
// trust prompt asks. Everything else is Headless.
type lineUI struct {
	hooks.Headless
	in  io.Reader
	out io.Writer
	mu  sync.Mutex // one question at a time
}

// maxLineAnswer bounds an answer read from the terminal.
const maxLineAnswer = 4096

func (u *lineUI) ask(ctx context.Context, prompt string) (string, bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	fmt.Fprint(u.out, prompt)
	line, err := readLine(u.in, maxLineAnswer)
	fmt.Fprintln(u.out)
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(line), true, nil
}

func (u *lineUI) Confirm(ctx context.Context, title, message string) (bool, error) {
	q := title
	if message != "" {
		q += "\n" + message
	}
	a, ok, err := u.ask(ctx, q+"\n[y/N]: ")
	if err != nil || !ok {
		return false, err
	}
	a = strings.ToLower(a)
	return a == "y" || a == "yes", nil
}

func (u *lineUI) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	var b strings.Builder
	b.WriteString(title + "\n")
	for i, o := range options {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, o)
	}
	fmt.Fprintf(&b, "Choice [1-%d, Enter = none]: ", len(options))
	a, ok, err := u.ask(ctx, b.String())
	if err != nil || !ok || a == "" {
		return "", false, err
	}
	n, convErr := strconv.Atoi(a)
	if convErr != nil || n < 1 || n > len(options) {
		fmt.Fprintf(u.out, "Not a choice: %q\n", a)
		return "", false, nil
	}
	return options[n-1], true, nil
}

func (u *lineUI) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	q := title
	if placeholder != "" {
		q += " (" + placeholder + ")"
	}
	a, ok, err := u.ask(ctx, q+": ")
	return a, ok && err == nil, err
}

func (u *lineUI) Notify(level hooks.Level, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if level == hooks.LevelWarning || level == hooks.LevelError {
		message = string(level) + ": " + message
	}
	fmt.Fprintln(u.out, message)
}
