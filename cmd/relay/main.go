// Command relay is a terminal coding agent.
package main

import (
	"context"
	"os"

	"github.com/relay-agent/relay/internal/cli"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

func main() {
	code := cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	// Full-output files named in tool results stay valid for the whole
	// session and go with the process.
	builtin.RemoveOutputFiles()
	os.Exit(code)
}
