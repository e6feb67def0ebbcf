package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// usage is `relay --help`: every flag with its default on one 80×40
// screen. `relay help TOPIC` gives the details, one flag per line.
const usage = `relay - a coding agent in the terminal
Usage: relay [options] [--] [@files...] [messages...]  -h, --help  -v, --version
       relay help TOPIC          relay sessions list|show|check ...
Topics: modes models sessions tools interface environment (docs/ has more)
Switches are off unless given; [brackets] hold a value's default.
Modes                   [terminal UI; print if stdin/stdout is not a terminal]
  -p, --print [MSG]       one-shot: final answer on stdout, then exit
      --mode MODE         text, json (event stream), rpc (JSONL) [text]
      --export IN [OUT]   write a session as HTML (or .jsonl) and exit
Model
      --model PATTERN     provider/id, id or fuzzy name[:level] [settings]
      --provider NAME     look --model up in this provider only [any]
      --api-key KEY       key for the model's provider, not saved [none]
      --thinking LEVEL    off minimal low medium high xhigh max [medium]
      --models LIST       models ctrl+p cycles [enabledModels, else all]
      --list-models [S]   list the models (matching S) and exit
      --laya-policy P     economy balanced quality critical [balanced]
Sessions                                      [a new session, saved]
  -c, --continue          continue this directory's newest session
  -r, --resume            pick a session (lists them without a terminal)
      --session PATH|ID   open a session file, or an id or id prefix
      --session-id ID     open or create the session with this id
      --fork PATH|ID      copy a session into a new one here
      --session-dir DIR   where sessions live [~/.relay/agent/sessions]
      --no-session        keep nothing       -n, --name NAME  title [none]
Tools and context
  -t, --tools LIST        only these tools [read bash edit write]
  -xt, --exclude-tools LIST  remove these        -nt, --no-tools  none at all
  -nbt, --no-builtin-tools  no built-ins   -nc, --no-context-files  no AGENTS.md
      --system-prompt T   replace the preamble (text or file) [built-in]
      --append-system-prompt T   add to the system prompt, repeatable
      --skill PATH, --prompt-template PATH   load one more, repeatable
  -ns, --no-skills, -np, --no-prompt-templates   discover none [discover]
  -e, --extension SRC     extension or package, repeatable  -ne, --no-extensions
Interface
      --use-theme NAME    system, dark, light or a custom theme [system]
      --theme PATH   theme file or dir, repeatable   --no-themes  only --theme
      --tui-mode MODE     fullscreen or regular [fullscreen]
      --verbose           show the start-up header      --offline  no network
  -a, --approve  -na, --no-approve    trust / ignore .relay here [ask]
`

// noKeyHelp ends every "no model / no key" message: where to read on,
// including how to run without any account (a local server).
const noKeyHelp = "a local OpenAI-compatible server (llama.cpp, Ollama, vLLM) needs no key: see relay help models and docs/providers.md"

// helpTopics are the pages of `relay help TOPIC`.
var helpTopics = map[string]string{
	"modes": `Modes: how relay talks to you

relay starts the terminal UI when stdin and stdout are terminals, and
print mode otherwise (a pipe, a script, CI).

  -p, --print [MSG]       One-shot: send the messages, print the final answer
                          on stdout, exit 0 (1 when the run failed). Tool
                          output and progress are not printed.
      --mode text         The default: terminal UI, or print mode (above).
      --mode json         One JSON record per line on stdout: the session
                          header, then every event of the run (docs/rpc.md).
      --mode rpc          A long-lived process: JSON commands on stdin,
                          responses and events on stdout (docs/rpc.md).
      --export IN [OUT]   Write session IN as HTML (or JSONL when OUT ends in
                          .jsonl) and exit. Default OUT:
                          relay-session-<id>.html in this directory.

Messages are the arguments after the options; @FILE arguments attach a file
(text inline, images as images). A message on stdin is read too.

Limits: piped stdin, each text @file and each prompt file (--system-prompt,
--append-system-prompt, SYSTEM.md, APPEND_SYSTEM.md) up to 4 MiB; an image
@file up to 32 MiB; settings.json, models.json, auth.json and the other
configuration files up to 4 MiB; session files up to 1 GiB. Larger inputs,
and paths that are not regular files (directories, FIFOs, devices), are
refused with an error naming them.
`,
	"models": `Models: which model answers

Without --model relay uses, in order: the model of the session being
continued, the first of --models / enabledModels, defaultProvider and
defaultModel from settings.json, then the preferred model of the first
provider that has a key. laya/auto lets the Laya router pick per request.

      --model PATTERN     "provider/id", an exact id, or a fuzzy name; a
                          ":LEVEL" suffix sets the thinking level.
                          Default: as above.
      --provider NAME     Look --model up in this provider only. Default:
                          every provider.
      --api-key KEY       API key for the chosen model's provider, for this
                          run only (never saved). Default: keys from
                          auth.json, models.json or the environment.
      --thinking LEVEL    off, minimal, low, medium, high, xhigh or max,
                          clamped to what the model supports. Default: the
                          session's level, else defaultThinkingLevel
                          (medium).
      --models LIST       Comma-separated patterns (globs, ":LEVEL") that
                          ctrl+p cycles through. Default: enabledModels, else
                          every model with a key.
      --list-models [S]   List the models that have keys (all of them when
                          none has), filtered by S, and exit.
      --laya-policy P     Cost profile of laya/auto: economy, balanced,
                          quality or critical. Default: laya.policy
                          (balanced).

Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ... (relay help
environment), /login in the terminal UI, or "apiKey" in models.json. A
local OpenAI-compatible server (llama.cpp, Ollama, vLLM) needs no key:
see docs/providers.md.
`,
	"sessions": `Sessions: where conversations are kept

Every conversation is saved as a JSONL file under
~/.relay/agent/sessions/--<cwd>--/ (docs/sessions.md). Default: a new
session each time relay starts.

  -c, --continue          Continue the newest session of this directory.
  -r, --resume            Pick a session to continue; without a terminal,
                          list this directory's sessions instead.
      --session PATH|ID   Open a session file, or an id or unique id prefix
                          (this directory first). An id from another
                          project is forked here (asked in the terminal UI,
                          an error naming --fork otherwise).
      --session-id ID     Open the session with this id, or create it.
      --fork PATH|ID      Copy a session into a new one for this directory.
      --session-dir DIR   Keep sessions in DIR. Default:
                          RELAY_CODING_AGENT_SESSION_DIR, settings
                          sessionDir, else ~/.relay/agent/sessions.
      --no-session        Save nothing (an in-memory session). Default: off.
  -n, --name NAME         Display name of the session. Default: none.

relay sessions list [--all] [--json]      sessions of this directory (all)
relay sessions show FILE|ID [--context] [--leaf ID] [--json]
relay sessions check FILE|ID              validate a file and its tree
relay mcp add|remove|list|login|logout    MCP servers (relay mcp --help)
relay auth check|print-api-key|print-bearer-token  (relay auth --help)
`,
	"tools": `Tools and context: what the model can do and see

Default tools: read, bash, edit and write (settings defaultTools); grep,
find and ls exist too. AGENTS.md / CLAUDE.md files (agent dir, then every
directory from the root to here) are sent as context.

  -t, --tools LIST              Exactly these tools (comma-separated).
  -xt, --exclude-tools LIST     Remove these tools from the selection.
  -nbt, --no-builtin-tools      No built-in tools. Default: off.
  -nt, --no-tools               No tools at all. Default: off.
  -nc, --no-context-files       Do not load AGENTS.md / CLAUDE.md. Default:
                                off.
      --system-prompt T         Replace the prompt preamble with text T or
                                the file T. Default: built-in (or SYSTEM.md).
      --append-system-prompt T  Append text or a file; repeatable. Default:
                                APPEND_SYSTEM.md when present.
      --skill PATH              Load a skill file or directory; repeatable.
  -ns, --no-skills              Do not discover skills. Default: off.
      --prompt-template PATH    Load a prompt template; repeatable.
  -np, --no-prompt-templates    Do not discover prompt templates. Default:
                                off.
  -e, --extension PATH          Not supported yet: relay warns and goes on.
  -ne, --no-extensions          Accepted; there is nothing to turn off yet.
`,
	"interface": `Interface: how the terminal UI looks and what relay may touch

      --use-theme NAME    Theme for this run: system (follows the
                          terminal's colours), dark, light, or the name of a
                          theme file. Default: settings theme (system).
      --theme PATH        Not supported yet: ignored. Theme files are read
                          from ~/.relay/agent/themes (docs/settings.md).
      --no-themes         Not supported yet: ignored.
      --tui-mode MODE     fullscreen (alternate screen) or regular (inline,
                          keeps scrollback). Default: settings tuiMode
                          (fullscreen).
      --verbose           Show the start-up header and loaded resources even
                          when quietStartup is set. Default: off.
  -a, --approve           Trust this project: load its .relay settings and
                          resources. Default: ask (terminal UI), else no.
  -na, --no-approve       Ignore this project's .relay files for this run.
      --offline           No automatic network access (RELAY_OFFLINE=1).
                          Default: off.
  -h, --help              This help.          -v, --version   The version.

Key bindings: /hotkeys in the terminal UI, docs/keybindings.md.
`,
	"environment": `Environment variables

RELAY_CODING_AGENT_DIR          agent dir [~/.relay/agent]
RELAY_CODING_AGENT_SESSION_DIR  session dir [<agent dir>/sessions]
RELAY_OFFLINE=1                 no automatic network access (--offline)
RELAY_CACHE_RETENTION=long      ask providers for long prompt caching
RELAY_SKIP_VERSION_CHECK=1      no update check
ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY,
XAI_API_KEY, GROQ_API_KEY, ...  provider keys (relay --list-models shows
                                which providers have one)
LLAMA_BASE_URL, LLAMA_API_KEY   llama.cpp server of the built-in llama.cpp
                                provider [http://127.0.0.1:8080]
HTTP_PROXY, HTTPS_PROXY         proxy (settings httpProxy sets both)
`,
}

// runHelp prints `relay help [TOPIC]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if page, ok := helpTopics[args[0]]; ok {
		fmt.Fprint(stdout, page)
		return 0
	}
	fmt.Fprintf(stderr, "Error: no help topic %q (topics: %s)\n", args[0], strings.Join(helpTopicNames(), ", "))
	return 1
}

func helpTopicNames() []string {
	names := make([]string, 0, len(helpTopics))
	for n := range helpTopics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
