// Command relay is a terminal coding agent.
package main

import (
	"context"
	"os"

	"github.com/relay-agent/relay/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
