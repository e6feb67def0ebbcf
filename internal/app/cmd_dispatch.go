package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/relay-agent/relay/internal/changelog"
	"github.com/relay-agent/relay/internal/commands"
)

// registerCommands registers the runtime's own slash commands: those whose
// logic needs no dialog. Front ends register their dialog commands (/model,
// /tree, /resume, /hotkeys ...) on the same registry.
func (r *Runtime) registerCommands() error {
	text := func(f func(args string) (string, error)) commands.Handler {
		return func(_ context.Context, args string) (commands.Output, error) {
			t, err := f(args)
			return commands.Output{Text: t}, err
		}
	}
	builtins := []commands.Command{
		{Name: "session", Description: "Show session file, id, messages, tokens and cost",
			Run: text(func(string) (string, error) { return r.sessionInfoText(), nil })},
		{Name: "name", Description: "Set or show the session name", Run: text(r.nameCommand)},
		{Name: "changelog", Description: "Show what changed in this version",
			Run: text(func(string) (string, error) { return changelog.Text(), nil })},
		{Name: "trust", Description: "Show or change project trust", Run: text(func(arg string) (string, error) {
			if arg == "" {
				return TrustState(r.cfg.Cwd, r.cfg.AgentDir).Format(), nil
			}
			n, err := strconv.Atoi(arg)
			if err != nil {
				return "", fmt.Errorf("usage: /trust [choice number]")
			}
			return r.setTrust(n - 1)
		})},
	}
	for _, c := range builtins {
		c.Source = commands.Builtin
		if err := r.cmds.Register(c); err != nil {
			return err
		}
	}
	return nil
}
