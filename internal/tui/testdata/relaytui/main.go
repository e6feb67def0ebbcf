// Command relaytui is relay with the interactive UI wired the way the
// composition root is expected to wire it; the tmux end-to-end tests build
// it until cmd/relay does the same.
package main

import (
	"context"
	"os"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/cli"
	"github.com/relay-agent/relay/internal/tui"
)

func main() {
	cli.Interactive = func(ctx context.Context, rt *app.Runtime, o cli.InteractiveOptions) error {
		return tui.RunApp(ctx, rt, tui.AppOptions{Settings: o.Settings, AgentDir: o.AgentDir, Inputs: o.Inputs,
			Resume: o.Resume, Stdout: o.Stdout, Registry: o.Registry, Version: "e2e"})
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
