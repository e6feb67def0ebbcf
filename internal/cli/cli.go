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
	if len(args) > 0 && args[0] == "sessions" {
		return runSessions(ctx, args[1:], env, stdout, stderr)
	}
	if len(args) > 0 && unsupportedCommands[args[0]] {
		// Reserved like upstream, so "relay list" is not sent to the model
		// as a prompt.
		fmt.Fprintf(stderr, "Error: relay %s is not supported yet (package, auth and mcp commands are not implemented); use -- %s to send it as a prompt\n", args[0], args[0])
		return 1
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

// unsupportedCommands are the subcommands of upstream-spec-core.md §1.1
// that relay does not implement yet.
var unsupportedCommands = map[string]bool{"install": true, "remove": true, "uninstall": true, "update": true,
	"list": true, "config": true, "auth": true, "mcp": true}

func isTTY(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const usage = `relay - a coding agent in the terminal

Usage:
  relay [options] [--] [@files...] [messages...]
  relay sessions list [--all] [--json]
  relay sessions show FILE|ID [--context] [--leaf ID] [--json]
  relay sessions check FILE|ID

Modes:
  -p, --print [msg]            one-shot: print the final answer and exit
      --mode text|json|rpc     output interface (json: event stream; rpc: JSONL protocol on stdin/stdout)
  (stdin or stdout not a terminal also selects print mode)

Model:
      --provider NAME          restrict --model lookup to a provider
      --model PATTERN          exact id, provider/id or fuzzy name; optional :<thinking> suffix
      --api-key KEY            key for the chosen model's provider (not saved)
      --thinking LEVEL         off, minimal, low, medium, high, xhigh, max
      --models LIST            comma-separated models to cycle through (globs, :<thinking>)
      --list-models [SEARCH]   list models and exit
      --laya-policy PROFILE    economy, balanced, quality or critical

Sessions:
  -c, --continue               continue the newest session of this directory
  -r, --resume                 pick a session to resume (lists sessions when not interactive)
      --session PATH|ID        open a session file, or an id / id prefix (this project first); an id
                               from another project is forked here: asked in the TUI, an error
                               naming --fork otherwise
      --session-id ID          open or create the session with this id
      --fork PATH|ID           copy a session into a new one for this directory
      --session-dir DIR        where sessions are stored
      --no-session             do not save this session
  -n, --name NAME              session display name
      --export IN.jsonl [OUT]  export a session to HTML (or .jsonl) and exit

Tools and context:
  -t,   --tools LIST           enable exactly these tools
  -xt,  --exclude-tools LIST   remove tools from the selection
  -nbt, --no-builtin-tools     no built-in tools
  -nt,  --no-tools             no tools at all
  -nc,  --no-context-files     do not load AGENTS.md / CLAUDE.md
      --system-prompt TEXT|FILE          replace the prompt preamble
      --append-system-prompt TEXT|FILE   append to the system prompt (repeatable)
  -e, --extension PATH (not supported yet: warns)  -ne, --no-extensions  --skill PATH  -ns, --no-skills
      --prompt-template PATH  -np, --no-prompt-templates  --theme PATH  --no-themes

Interface:
      --use-theme NAME         initial theme
      --tui-mode fullscreen|regular
      --verbose                show the startup header and resources
  -a, --approve / -na, --no-approve    trust or ignore this project's .relay resources
      --offline                no automatic network access (RELAY_OFFLINE=1)
  -h, --help                   show this help
  -v, --version                show the version

Environment: RELAY_CODING_AGENT_DIR (default ~/.relay/agent), RELAY_CODING_AGENT_SESSION_DIR,
RELAY_OFFLINE, RELAY_CACHE_RETENTION=long, provider keys such as ANTHROPIC_API_KEY, OPENAI_API_KEY,
GEMINI_API_KEY (see relay --list-models).
`
