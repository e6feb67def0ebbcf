package harness

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// EffectKind is what a tool call does to the world.
type EffectKind string

const (
	// EffectRead observes state (files, search, listings).
	EffectRead EffectKind = "read"
	// EffectWrite changes local working state reversibly (edit, write a file).
	EffectWrite EffectKind = "write"
	// EffectExecute runs a command whose effect is not otherwise known.
	EffectExecute EffectKind = "execute"
	// EffectVerify runs a check whose outcome is evidence (tests, type check,
	// build, lint) with an unmasked exit code.
	EffectVerify EffectKind = "verify"
	// EffectDestructive changes local state in a way that is hard to reverse.
	EffectDestructive EffectKind = "destructive"
	// EffectExternal changes state outside the workspace (push, publish, deploy).
	EffectExternal EffectKind = "external"
)

// IsMutation reports whether the effect changes state.
func (k EffectKind) IsMutation() bool {
	return k == EffectWrite || k == EffectDestructive || k == EffectExternal
}

// NeedsAuthorization reports whether the effect needs the developer's approval.
func (k EffectKind) NeedsAuthorization() bool {
	return k == EffectDestructive || k == EffectExternal
}

// Effect is the classification of one tool call.
type Effect struct {
	Kind EffectKind `json:"kind"`
	// Paths the call reads or writes, as given in its arguments.
	Paths []string `json:"paths,omitempty"`
	// Command of a shell tool.
	Command string `json:"command,omitempty"`
	// Reason of a destructive or external classification.
	Reason string `json:"reason,omitempty"`
	// MaskedCheck is set when the command runs a check whose exit code is
	// masked (`| tail`, `|| true`, `; echo`), which is why it is not verify.
	MaskedCheck bool `json:"maskedCheck,omitempty"`
	// Opaque is set when the command's effect cannot be determined without
	// running it (a variable as the command name, eval or sh -c of a
	// run-time string, code piped into a shell or interpreter, inline
	// interpreter code, a git alias); Kind is then destructive.
	Opaque bool `json:"opaque,omitempty"`

	// ops are the gated operations of a shell command, each of which the
	// request must authorize; nil for effects not found by the shell parse.
	ops []gatedOp
}

var (
	readTools  = setOf("read", "grep", "find", "ls", "glob", "search", "list", "cat", "view")
	writeTools = setOf("write", "edit", "multiedit", "multi_edit", "apply_patch", "patch", "notebook_edit")
	shellTools = setOf("bash", "shell", "sh", "powershell", "pwsh", "exec", "terminal", "run")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Classify classifies a tool call by tool name and arguments. Shell tools are
// classified by their command (argument command, cmd or script); unknown
// tools are execute. verifyCommands are the project's declared checks: when
// non-empty only they count as verification.
func Classify(toolName string, args json.RawMessage, verifyCommands []string) Effect {
	var m map[string]any
	if len(args) > 0 {
		_ = json.Unmarshal(args, &m) // malformed arguments classify as if empty
	}
	var paths []string
	if p := stringArg(m, "path", "file_path", "filePath", "file", "notebook_path"); p != "" {
		paths = []string{p}
	}
	name := strings.ToLower(toolName)
	switch {
	case name == "powershell" || name == "pwsh":
		// Not a POSIX shell: the textual rules.
		e := classifyCommandText(stringArg(m, "command", "cmd", "script"), verifyCommands)
		e.Paths = paths
		return e
	case shellTools[name]:
		e := ClassifyCommand(stringArg(m, "command", "cmd", "script"), verifyCommands)
		e.Paths = paths
		return e
	case writeTools[name]:
		return Effect{Kind: EffectWrite, Paths: paths}
	case readTools[name]:
		return Effect{Kind: EffectRead, Paths: paths}
	}
	return Effect{Kind: EffectExecute, Paths: paths}
}

func stringArg(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

type commandRule struct {
	re     *regexp.Regexp
	kind   EffectKind
	reason string
	// need lists lowercase substrings one of which a matching command must
	// contain: a cheap filter that skips most regex runs.
	need []string
	// except rejects a match by what follows it (RE2 has no look-ahead).
	except func(rest string) bool
}

// commandRules are ordered: the first match wins, so force push precedes
// plain push. They are built on first use.
var commandRules = sync.OnceValue(func() []commandRule {
	d, x := EffectDestructive, EffectExternal
	r := func(p string, k EffectKind, reason string, need ...string) commandRule {
		return commandRule{re: regexp.MustCompile(p), kind: k, reason: reason, need: need}
	}
	rebase := r(`\bgit\s+rebase\b`, d, "rebase rewrites history", "git")
	rebaseCtl := regexp.MustCompile(`^\s+--(?:continue|abort|skip|quit)\b`)
	rebase.except = rebaseCtl.MatchString
	return []commandRule{
		r(`\bgit\s+push\b[^\n;&|]*(?:\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)`, d, "force push rewrites remote history", "git"),
		r(`\bgit\s+reset\s+[^\n;&|]*--hard\b`, d, "git reset --hard discards uncommitted work", "git"),
		r(`\bgit\s+clean\s+[^\n;&|]*-[a-zA-Z]*f`, d, "git clean -f deletes untracked files", "git"),
		r(`\bgit\s+checkout\s+(?:--\s+)?\.(?:\s|$)`, d, "git checkout . discards uncommitted changes", "git"),
		r(`\bgit\s+restore\s+(?:[^\n;&|]*\s)?\.(?:\s|$)`, d, "git restore . discards uncommitted changes", "git"),
		r(`\bgit\s+stash\s+(?:drop|clear)\b`, d, "git stash drop/clear deletes stashed work", "git"),
		r(`\bgit\s+branch\s+[^\n;&|]*-D\b`, d, "git branch -D deletes an unmerged branch", "git"),
		r(`\bgit\s+(?:filter-branch|filter-repo)\b`, d, "history rewrite", "git"),
		rebase,
		// Any flag of the rm, not only the first: `rm -f -r dir` is recursive too.
		r(`\brm(?:\s+[^\s;&|]+)*?\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b`, d, "recursive delete", "rm"),
		r(`(?i)\bRemove-Item\b[^\n;|]*-Recurse\b`, d, "recursive delete", "remove-item"),
		r(`(?i)\b(?:rmdir|rd)\s+/s\b`, d, "recursive delete", "rmdir", "rd"),
		r(`(?i)\bdel\s+[^\n;&|]*/s\b`, d, "recursive delete", "del"),
		r(`\bfind\b[^\n;&|]*\s-delete\b`, d, "find -delete", "find"),
		r(`\b(?:mkfs|shred|dd\s+if=)`, d, "low-level disk write", "mkfs", "shred", "dd"),
		r(`(?i)\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA)|TRUNCATE\s+TABLE)\b`, d, "destructive SQL", "drop", "truncate"),
		r(`(?i)\bDELETE\s+FROM\s+\S+\s*(?:;|$|")`, d, "DELETE without WHERE", "delete"),
		r(`\bgit\s+push\b`, x, "git push changes the remote", "git"),
		r(`\b(?:npm|pnpm|yarn|bun)\s+publish\b`, x, "package publish", "publish"),
		r(`\b(?:cargo|twine|gem|dotnet\s+nuget)\s+(?:publish|upload|push)\b`, x, "package publish", "cargo", "twine", "gem", "nuget"),
		r(`\bgh\s+(?:pr\s+(?:create|merge|close|comment|review)|issue\s+(?:create|close|comment)|release\s+create|repo\s+(?:create|delete))\b`, x, "GitHub write operation", "gh"),
		r(`\b(?:kubectl\s+(?:apply|delete|scale|rollout)|helm\s+(?:install|upgrade|uninstall)|terraform\s+(?:apply|destroy)|pulumi\s+(?:up|destroy))\b`, x, "infrastructure change", "kubectl", "helm", "terraform", "pulumi"),
		r(`\bdocker\s+push\b`, x, "image push", "docker"),
		r(`\b(?:vercel|netlify|fly|firebase)\s+deploy\b|\bvercel\s+--prod\b`, x, "deploy", "deploy", "vercel"),
		r(`(?i)\bcurl\b[^\n;&|]*\s(?:-X\s*|--request[\s=]+)(?:POST|PUT|PATCH|DELETE)\b`, x, "remote write request", "curl"),
	}
})

func (r commandRule) match(cmd, lower string) bool {
	if len(r.need) > 0 {
		found := false
		for _, n := range r.need {
			if strings.Contains(lower, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if r.except == nil {
		return r.re.MatchString(cmd)
	}
	for _, loc := range r.re.FindAllStringIndex(cmd, -1) {
		if !r.except(cmd[loc[1]:]) {
			return true
		}
	}
	return false
}

// verifyRe recognizes common test, type-check, build and lint commands when
// the project declares none.
var verifyRe = lazyRe(`\b(?:test|tests|vitest|jest|mocha|pytest|unittest|tox|nox|rspec|phpunit|go\s+(?:test|vet|build)|cargo\s+(?:test|check|build|clippy)|tsc|mypy|pyright|ruff|eslint|biome|prettier\s+--check|lint|typecheck|type-check|check|build|make|ctest|gradle|mvn|dotnet\s+(?:test|build)|swift\s+(?:test|build)|node\s+--test)\b`)

var (
	pipefailRe = lazyRe(`\bpipefail\b`)
	declaredRe sync.Map // declared command -> *regexp.Regexp
)

// ClassifyCommand classifies a bash command line.
//
// Destructive, external and opaque operations come from a shell parse
// (shellOps): every command of the script is resolved and the §3.1 rules
// apply to its words, so `echo "rm -rf /"` only prints while
// `echo "DROP TABLE t" | psql` and `r""m -rf build` are destructive. A
// command line that does not parse falls back to the textual rules and is
// otherwise opaque. Checks (verify) are recognised in the text.
func ClassifyCommand(command string, verifyCommands []string) Effect {
	ops, ok := shellOps(command)
	if !ok {
		ops = textualOps(command)
		if len(ops) == 0 {
			ops = []gatedOp{{kind: EffectDestructive, reason: "opaque: the command does not parse as a shell script", text: command, opaque: true}}
		}
	}
	if len(ops) > 0 {
		return gatedEffect(command, ops)
	}
	return classifyChecks(command, verifyCommands)
}

// gatedEffect is the effect of a command with gated operations: the kind
// and reason of its first destructive operation, else its first opaque
// one, else its first external one.
func gatedEffect(command string, ops []gatedOp) Effect {
	best := -1
	rank := func(op gatedOp) int {
		switch {
		case op.kind == EffectDestructive && !op.opaque:
			return 0
		case op.opaque:
			return 1
		}
		return 2
	}
	for i, op := range ops {
		if best < 0 || rank(op) < rank(ops[best]) {
			best = i
		}
	}
	op := ops[best]
	return Effect{Kind: op.kind, Command: command, Reason: op.reason, Opaque: op.opaque, ops: ops}
}

// textualOps applies the textual rules to a command line that does not
// parse.
func textualOps(command string) []gatedOp {
	if e := classifyCommandText(command, nil); e.Kind.NeedsAuthorization() {
		return []gatedOp{{kind: e.Kind, reason: e.Reason, text: command}}
	}
	return nil
}

// classifyCommandText is the textual classification (§3.1's rules on the
// command line, printed text masked), for shells that are not POSIX
// (PowerShell) and command lines that do not parse.
func classifyCommandText(command string, verifyCommands []string) Effect {
	text := maskPrintedText(command)
	lower := strings.ToLower(text)
	for _, rule := range commandRules() {
		if rule.match(text, lower) {
			return Effect{Kind: rule.kind, Command: command, Reason: rule.reason}
		}
	}
	return classifyChecks(command, verifyCommands)
}

// classifyChecks classifies a command without gated operations: verify
// when it runs a check whose exit code reaches the tool.
func classifyChecks(command string, verifyCommands []string) Effect {
	text := maskPrintedText(command)
	end := lastCheckEnd(text, verifyCommands)
	switch {
	case end < 0:
		return Effect{Kind: EffectExecute, Command: command}
	case masksExitCode(command, end):
		return Effect{Kind: EffectExecute, Command: command, MaskedCheck: true}
	}
	return Effect{Kind: EffectVerify, Command: command}
}

// masksExitCode reports whether what follows a check replaces its exit code:
// `||`, `;` or a newline, or a pipe unless pipefail is set. `&&` keeps the
// failure.
func masksExitCode(command string, checkEnd int) bool {
	rest := command[checkEnd:]
	if strings.Contains(rest, "||") || strings.ContainsAny(rest, ";\n") {
		return true
	}
	return strings.Contains(rest, "|") && !pipefailRe().MatchString(command)
}

// lastCheckEnd is the end offset of the last check in command, or -1.
func lastCheckEnd(command string, verifyCommands []string) int {
	end := -1
	if len(verifyCommands) == 0 {
		for _, loc := range verifyRe().FindAllStringIndex(command, -1) {
			if !operandWord(command, loc[0], loc[1]) {
				end = loc[1]
			}
		}
		return end
	}
	for _, declared := range verifyCommands {
		re := declaredPattern(declared)
		if re == nil {
			continue
		}
		for _, loc := range re.FindAllStringIndex(command, -1) {
			end = max(end, loc[1])
		}
	}
	return end
}

// operandWord reports whether the check word at command[start:end] is part
// of a file or directory operand rather than a command: `build/`,
// `test.txt`, `build.log`, `app.test.ts`. Scripts (`./test.sh`) still count.
// A refinement of the original's purely textual rule, which took
// `cat test.txt` or `rm -f build.log` for a passing check.
func operandWord(command string, start, end int) bool {
	if start > 0 && command[start-1] == '.' {
		return true
	}
	if end >= len(command) {
		return false
	}
	switch command[end] {
	case '/', '\\':
		return true
	case '.':
		ext := command[end+1:]
		if i := strings.IndexFunc(ext, func(r rune) bool { return !isWordByte(byte(r)) || r > 127 }); i >= 0 {
			ext = ext[:i]
		}
		if ext == "" {
			return false
		}
		return !scriptExts[strings.ToLower(ext)]
	}
	return false
}

var scriptExts = setOf("sh", "bash", "zsh", "ps1", "bat", "cmd", "py", "js", "mjs", "cjs", "ts", "rb", "pl")

// declaredPattern matches a declared command token by token, literally, with
// any run of whitespace between tokens.
func declaredPattern(declared string) *regexp.Regexp {
	if v, ok := declaredRe.Load(declared); ok {
		return v.(*regexp.Regexp)
	}
	tokens := strings.Fields(declared)
	if len(tokens) == 0 {
		return nil
	}
	for i, t := range tokens {
		tokens[i] = regexp.QuoteMeta(t)
	}
	pattern := strings.Join(tokens, `\s+`)
	// "npm run check" must not match inside "npm run checkout".
	if last := declared[len(strings.TrimRightFunc(declared, unicode.IsSpace))-1]; isWordByte(last) {
		pattern += `\b`
	}
	re := regexp.MustCompile(pattern)
	declaredRe.Store(declared, re)
	return re
}

// maskPrintedText blanks (with spaces, so offsets hold) the simple commands
// that only print their arguments: echo, printf, Write-Host, Write-Output,
// unless their output is piped onward or they run a command substitution.
func maskPrintedText(command string) string {
	var out []byte
	for _, seg := range shellSegments(command) {
		if seg.pipedOut || !printsOnly(command[seg.start:seg.end]) {
			continue
		}
		if out == nil {
			out = []byte(command)
		}
		for i := seg.start; i < seg.end; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	if out == nil {
		return command
	}
	return string(out)
}

func printsOnly(seg string) bool {
	if strings.Contains(seg, "$(") || strings.Contains(seg, "`") || strings.Contains(seg, "<(") {
		return false
	}
	fields := strings.Fields(seg)
	for len(fields) > 0 && isAssignment(fields[0]) {
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return false
	}
	switch strings.ToLower(fields[0]) {
	case "echo", "printf", "write-host", "write-output":
		return true
	case "cat", "tee":
		// A here-document fed to cat or tee is written or printed, not run.
		return strings.Contains(seg, "<<")
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isAssignment(word string) bool {
	i := strings.IndexByte(word, '=')
	if i <= 0 {
		return false
	}
	for _, c := range word[:i] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

type segment struct {
	start, end int
	pipedOut   bool // followed by a single `|`
}

// shellSegments splits a command line into simple commands at unquoted
// `;`, `&`, `&&`, `|`, `||` and newlines. Quotes, backslash escapes and
// here-document bodies (which belong to their command) are honoured; it is
// not a full shell parser and need not be.
func shellSegments(cmd string) []segment {
	var segs []segment
	var heredocs []heredoc
	start := 0
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\\':
			i++
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		case c == '<' && strings.HasPrefix(cmd[i:], "<<") && !strings.HasPrefix(cmd[i:], "<<<"):
			h, n := parseHeredoc(cmd[i+2:])
			if h.delim != "" {
				heredocs = append(heredocs, h)
			}
			i += 1 + n
			continue
		case c == '\n' && len(heredocs) > 0:
			i = skipHeredocBodies(cmd, i+1, heredocs)
			heredocs = nil
			if i >= len(cmd) {
				return append(segs, segment{start: start, end: len(cmd)})
			}
			// i is the newline ending the last body: a separator.
		case c == ';' || c == '\n' || c == '&' || c == '|':
			if c == '&' && i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<') {
				continue // 2>&1
			}
			if c == '&' && i+1 < len(cmd) && cmd[i+1] == '>' {
				continue // &> file
			}
		default:
			continue
		}
		c = cmd[i]
		seg := segment{start: start, end: i}
		if c == '|' {
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
			} else {
				seg.pipedOut = true
			}
		} else if c == '&' && i+1 < len(cmd) && cmd[i+1] == '&' {
			i++
		}
		segs = append(segs, seg)
		start = i + 1
	}
	return append(segs, segment{start: start, end: len(cmd)})
}

type heredoc struct {
	delim     string
	stripTabs bool // <<-
}

// parseHeredoc reads the delimiter after "<<" and returns how many bytes of
// rest it used.
func parseHeredoc(rest string) (heredoc, int) {
	var h heredoc
	i := 0
	if i < len(rest) && rest[i] == '-' {
		h.stripTabs = true
		i++
	}
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	var q byte
	if i < len(rest) && (rest[i] == '\'' || rest[i] == '"') {
		q = rest[i]
		i++
	}
	j := i
	for j < len(rest) && (isWordByte(rest[j]) || rest[j] == '-' || rest[j] == '.') {
		j++
	}
	h.delim = rest[i:j]
	if q != 0 && j < len(rest) && rest[j] == q {
		j++
	}
	return h, j
}

// skipHeredocBodies returns the offset of the newline that ends the last
// here-document body starting at pos, or len(cmd) when a body runs to the end.
func skipHeredocBodies(cmd string, pos int, docs []heredoc) int {
	for _, h := range docs {
		for {
			if pos >= len(cmd) {
				return len(cmd)
			}
			nl := strings.IndexByte(cmd[pos:], '\n')
			end := len(cmd)
			if nl >= 0 {
				end = pos + nl
			}
			line := cmd[pos:end]
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			pos = end + 1
			if line == h.delim {
				break
			}
		}
	}
	return pos - 1
}
