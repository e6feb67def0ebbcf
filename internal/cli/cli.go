// Package cli parses the command line, selects the mode and wires the
// runtime: it is the composition root of relay.
package cli

import (
	"context"
	"fmt"
	"io"
)

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "0.1.0-dev"

// Main runs relay with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "sessions" {
		return runSessions(ctx, args[1:], stdout, stderr)
	}
	for _, a := range args {
		switch a {
		case "-v", "--version":
			fmt.Fprintln(stdout, Version)
			return 0
		case "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	fmt.Fprintln(stderr, "Error: relay is not wired yet; see README")
	return 1
}

const usage = `relay - a coding agent in the terminal

Usage: relay [options] [--] [@files...] [messages...]
`
