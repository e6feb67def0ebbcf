package harness

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Rules of §3.1 on one resolved command (argv after quote removal). The
// tables are built on first use: nothing here costs anything at process
// start.

type shellTableSet struct {
	shellNames, printCommands, textSearchTools, wrapperCommands, interpreterLongFlags, stdinInterpreters, awkNames, gitGlobalsWithValue, gitCommands map[string]bool
	// interpreter -> short flags (any one in a cluster) that take inline code
	interpreterFlags                                                map[string]string
	gitCommandKeyRe, sqlDestructiveRe, sqlDeleteAllRe, curlMethodRe *regexp.Regexp
}

var shellTables = sync.OnceValue(func() *shellTableSet {
	return &shellTableSet{
		shellNames:           setOf("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "rbash", "yash", "tcsh", "csh"),
		printCommands:        setOf("echo", "printf", "write-host", "write-output", "print"),
		textSearchTools:      setOf("grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "echo", "printf", "sed", "awk", "gawk", "mawk", "nawk", "jq", "yq", "less", "more", "head", "tail", "cat", "tee", "wc", "sort", "uniq", "cut", "tr", "diff", "comm", "fzf", "write-host", "write-output", "print"),
		wrapperCommands:      setOf("sudo", "doas", "env", "command", "builtin", "exec", "nohup", "nice", "ionice", "time", "timeout", "stdbuf", "setsid", "xargs", "chrt", "taskset", "unbuffer", "caffeinate", "strace", "ltrace", "valgrind", "chroot", "runuser", "npx", "bunx", "pnpx", "dotenv", "then", "do", "watchexec", "entr", "parallel", "nsenter", "unshare", "firejail", "systemd-run", "flatpak-spawn", "catchsegv", "fakeroot", "proxychains", "torsocks", "with-contenv", "direnv", "mise", "asdf", "rtx", "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "bundle", "docker", "podman", "kubectl", "nix-shell", "devbox", "conda", "mamba", "micromamba", "pnpm", "yarn", "npm", "bun", "deno", "cargo", "go", "make", "just", "task"),
		interpreterLongFlags: setOf("--eval", "--print", "--command", "-command", "-encodedcommand", "-ec", "--expr", "--exec"),
		stdinInterpreters:    setOf("python", "pypy", "node", "nodejs", "perl", "ruby", "php", "lua", "luajit", "rscript", "r", "julia", "osascript", "groovy", "pwsh", "powershell", "tclsh", "irb", "deno", "bun"),
		awkNames:             setOf("awk", "gawk", "mawk", "nawk", "busybox-awk"),
		gitGlobalsWithValue:  setOf("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source", "--list-cmds"),
		gitCommands: setOf("add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle",
			"cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry",
			"cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects",
			"credential", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export",
			"fast-import", "fetch", "fetch-pack", "filter-branch", "filter-repo", "fmt-merge-msg", "for-each-ref", "for-each-repo",
			"format-patch", "fsck", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help", "hook", "index-pack", "init",
			"instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance",
			"merge", "merge-base", "merge-file", "merge-index", "merge-tree", "mergetool", "mktag", "mktree", "mv", "name-rev",
			"notes", "pack-objects", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "range-diff", "read-tree",
			"rebase", "reflog", "remote", "repack", "replace", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse",
			"revert", "rm", "send-email", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage",
			"stash", "status", "stripspace", "submodule", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects",
			"update-index", "update-ref", "update-server-info", "var", "verify-commit", "verify-pack", "verify-tag", "version",
			"whatchanged", "worktree", "write-tree", "lfs", "replay", "backfill", "refs", "last-modified", "repo"),
		interpreterFlags: map[string]string{
			// interpreter -> short flags (any one in a cluster) that take inline code
			"python": "c", "pypy": "c", "node": "ep", "nodejs": "ep", "bun": "e", "perl": "eE", "ruby": "e",
			"php": "r", "lua": "e", "luajit": "e", "rscript": "e", "r": "e", "julia": "e", "osascript": "e",
			"groovy": "e", "pwsh": "c", "powershell": "c",
		},
		gitCommandKeyRe:  regexp.MustCompile(`(?i)^(?:core\.(?:pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|credential\..*helper|gpg\..*program|pager\..+|.+\.textconv|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver|(?:diff|merge)tool\..+\.cmd|uploadpack\.packobjectshook|ssh\.variant|core\.hookspath)$`),
		sqlDestructiveRe: regexp.MustCompile(`(?i)\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA)|TRUNCATE\s+TABLE)\b`),
		sqlDeleteAllRe:   regexp.MustCompile(`(?i)\bDELETE\s+FROM\s+\S+\s*(?:;|$|")`),
		curlMethodRe:     regexp.MustCompile(`(?i)^(?:POST|PUT|PATCH|DELETE)$`),
	}
})

func shellNames() map[string]bool           { return shellTables().shellNames }
func textSearchTools() map[string]bool      { return shellTables().textSearchTools }
func wrapperCommands() map[string]bool      { return shellTables().wrapperCommands }
func interpreterLongFlags() map[string]bool { return shellTables().interpreterLongFlags }
func stdinInterpreters() map[string]bool    { return shellTables().stdinInterpreters }
func awkNames() map[string]bool             { return shellTables().awkNames }
func gitGlobalsWithValue() map[string]bool  { return shellTables().gitGlobalsWithValue }
func gitCommands() map[string]bool          { return shellTables().gitCommands }
func interpreterFlags() map[string]string   { return shellTables().interpreterFlags }
func gitCommandKeyRe() *regexp.Regexp       { return shellTables().gitCommandKeyRe }
func sqlDestructiveRe() *regexp.Regexp      { return shellTables().sqlDestructiveRe }
func sqlDeleteAllRe() *regexp.Regexp        { return shellTables().sqlDeleteAllRe }
func curlMethodRe() *regexp.Regexp          { return shellTables().curlMethodRe }

// canonical joins words into a command line for the request's operation
// words (dynamic parts shown as $...).
func canonical(words []shellWord) string {
	parts := make([]string, len(words))
	for i, w := range words {
		t := strings.ReplaceAll(w.text, "\x00", "$…")
		if t == "" || strings.ContainsAny(t, " \t\n") {
			t = `"` + t + `"`
		}
		parts[i] = t
	}
	return strings.Join(parts, " ")
}

// couldBeOption reports whether a word may expand to an option: a dynamic
// word with no static text before its first expansion.
func couldBeOption(w shellWord) bool { return !w.static && w.prefix == "" }

// shortCluster returns the letters of a short option cluster ("-rf" ->
// "rf"), or "".
func shortCluster(arg string) string {
	if len(arg) > 1 && arg[0] == '-' && arg[1] != '-' {
		return arg[1:]
	}
	return ""
}

func interpreterKey(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "python"):
		return "python"
	case strings.HasPrefix(n, "pypy"):
		return "pypy"
	case strings.HasPrefix(n, "perl"):
		return "perl"
	case strings.HasPrefix(n, "ruby"):
		return "ruby"
	case strings.HasPrefix(n, "php"):
		return "php"
	case strings.HasPrefix(n, "lua"):
		return "lua"
	case strings.HasPrefix(n, "node"):
		return "node"
	}
	return n
}

// argv classifies one command with a static name.
func (s *shellScanner) argv(words []shellWord, in stdinSource, text string) {
	name := commandBase(words[0].text)
	lname := strings.ToLower(name)
	args := words[1:]
	canon := canonical(append([]shellWord{{text: name, static: true}}, args...))
	if !textSearchTools()[lname] {
		s.sql(args, canon)
	}
	if in.present && in.static && !textSearchTools()[lname] && !shellNames()[lname] && !stdinInterpreters()[interpreterKey(lname)] {
		s.sqlText(in.text, canon)
	}
	switch {
	case shellNames()[lname]:
		s.shell(name, args, in, text)
		return
	case lname == "eval":
		s.evalArgs(args, in, text, "eval")
		return
	case lname == "alias":
		for _, a := range args {
			if i := strings.IndexByte(a.text, '='); i > 0 && a.static {
				s.script(a.text[i+1:], text)
			}
		}
		return
	case lname == "trap":
		if len(args) > 0 && !strings.HasPrefix(args[0].text, "-") {
			s.evalArgs(args[:1], stdinSource{}, text, "trap")
		}
		return
	case lname == "watch":
		s.watch(args, text)
		return
	case lname == "ssh":
		s.ssh(args, in, text)
		return
	case lname == "su" || lname == "flock" || lname == "script":
		for i, a := range args {
			if (a.text == "-c" || a.text == "--command") && i+1 < len(args) {
				s.evalArgs(args[i+1:i+2], stdinSource{}, text, name+" -c")
				return
			}
		}
	case awkNames()[lname]:
		s.awk(args, text)
		return
	case lname == "git":
		s.git(words, text)
		return
	case lname == "find":
		s.find(args, text, canon)
		return
	}
	if key := interpreterKey(lname); interpreterFlags()[key] != "" || stdinInterpreters()[key] {
		if s.interpreter(key, name, args, in, text) {
			return
		}
	}
	if s.rules(lname, args, canon, text) {
		return
	}
	if wrapperCommands()[lname] {
		s.wrapped(args, in, text, lname)
	}
}

// wrapped classifies the command a wrapper runs (sudo, env, timeout,
// xargs, npx, docker exec, kubectl exec ...): the first argument that
// names a command the rules know, with what follows it.
func (s *shellScanner) wrapped(args []shellWord, in stdinSource, text string, name string) {
	positional := false
	for i, a := range args {
		if !a.static {
			// exec "$cmd", sudo $(which rm) ...: the command itself is unknown.
			if !positional && runsFirstPositional(name) {
				s.opaque(name+" runs a command named by an expansion", text)
				return
			}
			positional = true
			continue
		}
		if !strings.HasPrefix(a.text, "-") && !isAssignment(a.text) {
			positional = true
		}
		if knownCommand(commandBase(a.text)) {
			if s.depth >= maxShellDepth {
				s.opaque("commands nested too deeply to follow", text)
				return
			}
			s.depth++
			s.argv(args[i:], in, text)
			s.depth--
			return
		}
	}
}

// runsFirstPositional reports whether a wrapper's first operand is the
// command it runs.
func runsFirstPositional(name string) bool {
	switch name {
	case "exec", "command", "builtin", "sudo", "doas", "env", "nohup", "xargs", "setsid", "stdbuf", "nice":
		return true
	}
	return false
}

// knownCommand reports whether the rules classify a command name.
func knownCommand(name string) bool {
	l := strings.ToLower(name)
	if shellNames()[l] || awkNames()[l] || stdinInterpreters()[interpreterKey(l)] || interpreterFlags()[interpreterKey(l)] != "" {
		return true
	}
	switch l {
	case "eval", "git", "find", "rm", "remove-item", "rmdir", "rd", "del", "erase", "shred", "dd", "npm", "pnpm", "yarn", "bun",
		"cargo", "twine", "gem", "dotnet", "gh", "kubectl", "helm", "terraform", "pulumi", "docker", "podman", "vercel",
		"netlify", "fly", "flyctl", "firebase", "curl", "wget", "ssh", "su", "flock", "watch", "xargs", "sudo", "doas", "env",
		"timeout", "nice", "nohup", "exec", "command", "psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "duckdb":
		return true
	}
	return strings.HasPrefix(l, "mkfs")
}

func (s *shellScanner) evalArgs(args []shellWord, in stdinSource, text, what string) {
	var parts []string
	for _, a := range args {
		if !a.static {
			s.opaque(what+" of a string built at run time", text)
			return
		}
		parts = append(parts, a.text)
	}
	if len(parts) > 0 {
		s.scriptIn(strings.Join(parts, " "), in, text)
	}
}

// shell: sh -c STRING runs STRING; sh -s or no script file runs standard
// input; sh FILE runs a file (like ./FILE, not opaque).
func (s *shellScanner) shell(name string, args []shellWord, in stdinSource, text string) {
	command, stdin := false, false
	for i, a := range args {
		if couldBeOption(a) {
			s.opaque("the options of "+name+" come from an expansion", text)
			return
		}
		if command {
			s.evalArgs([]shellWord{a}, in, text, name+" -c")
			return
		}
		switch {
		case a.text == "--" || a.text == "-":
			stdin = true
			continue
		case a.text == "-o" || a.text == "+o" || a.text == "-O" || a.text == "+O" || a.text == "--rcfile" || a.text == "--init-file":
			if i+1 < len(args) {
				args[i+1] = shellWord{text: "-", static: true} // consumed as the option's value
			}
			continue
		case strings.HasPrefix(a.text, "--"):
			if a.text == "--command" {
				command = true
			}
			continue
		case (strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+")) && len(a.text) > 1:
			if strings.ContainsRune(a.text[1:], 'c') {
				command = true
			}
			if strings.ContainsRune(a.text[1:], 's') {
				stdin = true
			}
			continue
		}
		if !stdin {
			return // a script file
		}
		break
	}
	if command {
		s.opaque(name+" -c without a command", text)
		return
	}
	if !in.present {
		return
	}
	if in.static {
		s.script(in.text, text)
		return
	}
	s.opaque(in.what+" is piped into "+name, text)
}

// interpreter: inline code (python -c, node -e, perl -e ...) and code read
// from a pipe or here-document are opaque. It returns false when the call
// runs a script file (the other rules then apply).
func (s *shellScanner) interpreter(key, name string, args []shellWord, in stdinSource, text string) bool {
	flags := interpreterFlags()[key]
	script := false
	for _, a := range args {
		if couldBeOption(a) {
			s.opaque("the options of "+name+" come from an expansion", text)
			return true
		}
		t := a.text
		if key == "deno" && (t == "eval" || t == "repl") || key == "bun" && t == "eval" {
			s.opaque(name+" "+t+" runs inline code", text)
			return true
		}
		if interpreterLongFlags()[strings.ToLower(strings.SplitN(t, "=", 2)[0])] && (key != "bun" || t != "--print") {
			s.opaque(name+" "+strings.SplitN(t, "=", 2)[0]+" runs inline code", text)
			return true
		}
		if c := shortCluster(t); c != "" && flags != "" {
			if key == "python" && (c == "m" || strings.HasPrefix(c, "m")) {
				return false // a module: like a script file
			}
			if strings.ContainsAny(c, flags) {
				s.opaque(name+" -"+c+" runs inline code", text)
				return true
			}
			continue
		}
		if t == "-" {
			break
		}
		if !strings.HasPrefix(t, "-") {
			script = true
			break
		}
	}
	if script || !in.present {
		return false
	}
	s.opaque(describeInput(in)+" is fed to "+name+" as code", text)
	return true
}

func describeInput(in stdinSource) string {
	if in.what == "" {
		return "standard input"
	}
	return in.what
}

// awk programs run commands only through system() or pipes.
func (s *shellScanner) awk(args []shellWord, text string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "-f" || strings.HasPrefix(a.text, "--file"):
			return // a program file
		case a.text == "-v" || a.text == "-F":
			i++
			continue
		case strings.HasPrefix(a.text, "-") && len(a.text) > 1:
			continue
		}
		if !a.static {
			s.opaque("an awk program built at run time", text)
		} else if strings.Contains(a.text, "system") || strings.Contains(a.text, "|") {
			s.opaque("the awk program runs commands (system or a pipe)", text)
		}
		return
	}
}

func (s *shellScanner) watch(args []shellWord, text string) {
	for i, a := range args {
		if strings.HasPrefix(a.text, "-") || i > 0 && (args[i-1].text == "-n" || args[i-1].text == "--interval") {
			continue
		}
		s.evalArgs(args[i:], stdinSource{}, text, "watch")
		return
	}
}

// ssh HOST COMMAND... runs COMMAND in a remote shell.
func (s *shellScanner) ssh(args []shellWord, in stdinSource, text string) {
	withValue := "bcDEeFIiJLlmOopQRSWw"
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if c := shortCluster(t); c != "" {
			if strings.ContainsRune(withValue, rune(c[len(c)-1])) && len(c) == 1 {
				i++
			}
			continue
		}
		// args[i] is the host.
		if i+1 < len(args) {
			s.evalArgs(args[i+1:], in, text, "ssh")
		}
		return
	}
}

func (s *shellScanner) find(args []shellWord, text, canon string) {
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-delete":
			s.add(EffectDestructive, "find -delete", canon)
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			if j > i+1 {
				sub := args[i+1 : j]
				if !sub[0].static {
					s.opaque("find "+args[i].text+" runs a command named by an expansion", text)
				} else {
					s.depth++
					s.argv(sub, stdinSource{}, text)
					s.depth--
				}
			}
			i = j
		}
	}
}

// rules applies the non-git command rules; true when the command was
// fully handled.
func (s *shellScanner) rules(lname string, args []shellWord, canon, text string) bool {
	d, x := EffectDestructive, EffectExternal
	beforeDashDash := args
	for i, a := range args {
		if a.text == "--" && a.static {
			beforeDashDash = args[:i]
			break
		}
	}
	anyArg := func(pred func(string) bool) bool {
		for _, a := range beforeDashDash {
			if a.static && pred(a.text) {
				return true
			}
		}
		return false
	}
	dynamicOption := false
	for _, a := range beforeDashDash {
		if couldBeOption(a) {
			dynamicOption = true
		}
	}
	positional := func() []string {
		var out []string
		for _, a := range beforeDashDash {
			if !strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "+") {
				out = append(out, a.text)
			}
		}
		return out
	}
	switch {
	case lname == "rm":
		switch {
		case anyArg(func(t string) bool { return t == "--recursive" || strings.ContainsAny(shortCluster(t), "rR") }):
			s.add(d, "recursive delete", canon)
		case dynamicOption:
			s.opaque("rm with options from an expansion", text)
		}
		return true
	case lname == "remove-item" || lname == "ri":
		if anyArg(func(t string) bool {
			l := strings.ToLower(t)
			return len(l) >= 2 && strings.HasPrefix("-recurse", l)
		}) {
			s.add(d, "recursive delete", canon)
		}
		return true
	case lname == "rmdir" || lname == "rd" || lname == "del" || lname == "erase":
		if anyArg(func(t string) bool { return strings.EqualFold(t, "/s") }) {
			s.add(d, "recursive delete", canon)
		}
		return true
	case strings.HasPrefix(lname, "mkfs") || lname == "shred" || lname == "wipefs":
		s.add(d, "low-level disk write", canon)
		return true
	case lname == "dd":
		if anyArg(func(t string) bool { return strings.HasPrefix(t, "if=") || strings.HasPrefix(t, "of=/dev/") }) {
			s.add(d, "low-level disk write", canon)
		}
		return true
	case lname == "npm" || lname == "pnpm" || lname == "yarn" || lname == "bun":
		if anyArg(func(t string) bool { return t == "publish" }) {
			s.add(x, "package publish", canon)
			return true
		}
	case lname == "cargo" || lname == "twine" || lname == "gem":
		if p := positional(); len(p) > 0 && (p[0] == "publish" || p[0] == "upload" || p[0] == "push") {
			s.add(x, "package publish", canon)
			return true
		}
	case lname == "dotnet":
		if p := positional(); len(p) > 1 && p[0] == "nuget" && p[1] == "push" {
			s.add(x, "package publish", canon)
		}
		return true
	case lname == "gh":
		p := positional()
		if len(p) > 1 {
			verb := p[1]
			switch p[0] {
			case "pr":
				if slices.Contains([]string{"create", "merge", "close", "comment", "review", "edit", "ready", "reopen"}, verb) {
					s.add(x, "GitHub write operation", canon)
				}
			case "issue":
				if slices.Contains([]string{"create", "close", "comment", "edit", "delete", "reopen", "transfer"}, verb) {
					s.add(x, "GitHub write operation", canon)
				}
			case "release":
				if slices.Contains([]string{"create", "delete", "edit", "upload"}, verb) {
					s.add(x, "GitHub write operation", canon)
				}
			case "repo":
				if slices.Contains([]string{"create", "delete", "edit", "rename", "archive", "fork"}, verb) {
					s.add(x, "GitHub write operation", canon)
				}
			}
		}
		if len(p) > 0 && p[0] == "api" && anyArg(func(t string) bool {
			return curlMethodRe().MatchString(t) || t == "-f" || t == "-F" || t == "--field" || t == "--raw-field" || t == "--input"
		}) {
			s.add(x, "GitHub write operation", canon)
		}
		return true
	case lname == "kubectl" || lname == "oc":
		if anyArg(func(t string) bool { return t == "apply" || t == "delete" || t == "scale" || t == "rollout" }) {
			s.add(x, "infrastructure change", canon)
			return true
		}
	case lname == "helm":
		if anyArg(func(t string) bool {
			return t == "install" || t == "upgrade" || t == "uninstall" || t == "delete" || t == "rollback"
		}) {
			s.add(x, "infrastructure change", canon)
		}
		return true
	case lname == "terraform" || lname == "tofu":
		if anyArg(func(t string) bool { return t == "apply" || t == "destroy" }) {
			s.add(x, "infrastructure change", canon)
		}
		return true
	case lname == "pulumi":
		if anyArg(func(t string) bool { return t == "up" || t == "destroy" }) {
			s.add(x, "infrastructure change", canon)
		}
		return true
	case lname == "docker" || lname == "podman":
		if p := positional(); len(p) > 0 && (p[0] == "push" || len(p) > 1 && p[0] == "image" && p[1] == "push") {
			s.add(x, "image push", canon)
			return true
		}
	case lname == "vercel" || lname == "netlify" || lname == "fly" || lname == "flyctl" || lname == "firebase":
		if anyArg(func(t string) bool { return t == "deploy" || lname == "vercel" && t == "--prod" }) {
			s.add(x, "deploy", canon)
		}
		return true
	case lname == "curl":
		for i, a := range beforeDashDash {
			t := a.text
			method := ""
			switch {
			// -X matched case-insensitively, as §3.1 has it.
			case t == "-X" || t == "-x" || t == "--request":
				if i+1 < len(beforeDashDash) {
					method = beforeDashDash[i+1].text
				}
			case strings.HasPrefix(t, "--request="):
				method = t[len("--request="):]
			case strings.HasPrefix(t, "-X") || strings.HasPrefix(t, "-x"):
				method = t[2:]
			case t == "-d" || strings.HasPrefix(t, "--data") || t == "-F" || t == "--form" || t == "-T" || t == "--upload-file" || t == "--json":
				method = "POST"
			}
			if curlMethodRe().MatchString(method) {
				s.add(x, "remote write request", canon)
				return true
			}
		}
		return true
	case lname == "wget":
		if anyArg(func(t string) bool {
			return strings.HasPrefix(t, "--post-") || strings.HasPrefix(t, "--method=") && curlMethodRe().MatchString(t[len("--method="):])
		}) {
			s.add(x, "remote write request", canon)
		}
		return true
	}
	return false
}

// sql flags destructive SQL in the arguments of a command (psql -c ...).
func (s *shellScanner) sql(args []shellWord, canon string) {
	for _, a := range args {
		if a.static && s.sqlText(a.text, canon) {
			return
		}
	}
}

func (s *shellScanner) sqlText(text, canon string) bool {
	if len(text) < 8 {
		return false
	}
	lower := strings.ToLower(text)
	if strings.Contains(lower, "drop") || strings.Contains(lower, "truncate") {
		if sqlDestructiveRe().MatchString(text) {
			s.add(EffectDestructive, "destructive SQL", canon)
			return true
		}
	}
	if strings.Contains(lower, "delete") && sqlDeleteAllRe().MatchString(text) {
		s.add(EffectDestructive, "DELETE without WHERE", canon)
		return true
	}
	return false
}
