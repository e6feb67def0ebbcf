// Package cli parses the command line, selects the mode and wires the
// runtime: it is the composition root of relay.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/relay-agent/relay/internal/config"
)

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "0.1.0-dev"

// Main runs relay with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The environment is read once, here, and passed down.
	env := config.ReadEnv()
	if len(args) > 0 && args[0] == "help" {
		return runHelp(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sessions" {
		return runSessions(ctx, args[1:], env, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "mcp" {
		return runMCPCommand(ctx, args[1:], env, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "config" {
		return runConfigCommand(ctx, args[1:], env, stdin, stdout, stderr)
	}
	if len(args) > 0 && packageCommands[args[0]] {
		return runPackageCommand(ctx, args, env, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "auth" {
		return runAuth(ctx, args[1:], env, stdout, stderr)
	}
	a, err := ParseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if a.Help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if a.Version {
		fmt.Fprintln(stdout, Version)
		return 0
	}
	code, err := run(ctx, a, env, stdin, stdout, stderr)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "Error: %s\n", ue.Msg)
		} else {
			fmt.Fprintf(stderr, "Error: %v\n", err)
		}
		if code == 0 {
			code = 1
		}
	}
	return code
}

// packageCommands are relay's package commands (packages.go).
var packageCommands = map[string]bool{"install": true, "remove": true, "uninstall": true, "update": true, "list": true}

func isTTY(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
