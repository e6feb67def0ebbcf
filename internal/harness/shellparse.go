package harness

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The authorization gate classifies shell commands from a real parse
// (mvdan.cc/sh), not from their text: quotes and escapes are removed before
// a word is compared (`r""m` is rm), git's global options are skipped
// (`git -C . push --force` is a force push), and every command of lists,
// pipelines, subshells, blocks, functions and command or process
// substitutions is examined. A command whose effect cannot be known without
// running it is opaque: a variable or substitution as the command name,
// eval or `sh -c` of a non-literal string, anything piped into a shell or an
// interpreter, inline interpreter code (python -c, node -e, perl -e ...), a
// git alias. Literal strings that a shell would run (`bash -c '...'`,
// `eval "..."`, `ssh host '...'`, `find -exec`, `xargs cmd`, a git alias
// defined with -c, a here-document fed to sh) are parsed and classified in
// turn.

// gatedOp is one destructive, external or opaque operation of a command.
type gatedOp struct {
	kind   EffectKind
	reason string
	// text is the operation as a canonical command line (quotes removed,
	// git globals dropped) for the request's operation words; for an opaque
	// operation, the source text.
	text   string
	opaque bool
}

// maxShellDepth bounds nested scripts (sh -c 'eval "bash -c ..."').
const maxShellDepth = 4

// shellWord is a word after quote removal. static is false when part of it
// is only known at run time (parameter, command or arithmetic expansion,
// a glob or brace expansion in a command name); prefix is then the static
// text before the first dynamic part.
type shellWord struct {
	text   string
	static bool
	prefix string
	src    string
}

// stdinSource is what a command reads on standard input.
type stdinSource struct {
	present bool   // fed by a pipe, a here-document or a here-string
	static  bool   // text is the whole input
	text    string // the input when static
	what    string // description when not static
}

type shellScanner struct {
	src   string
	depth int
	ops   []gatedOp
}

// parsers are reused: a Parser holds buffers worth keeping between calls.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// parseShell parses a bash script; ok is false when it does not parse.
func parseShell(script string) (*syntax.File, bool) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(script), "")
	parsers.Put(p)
	return f, err == nil
}

// maxShellNesting bounds how deeply parentheses nest in a script (counted
// on the raw text): the parser's time grows with the square of the nesting
// of subshells and substitutions, and no real command nests this deep.
const maxShellNesting = 200

func parenDepth(script string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(script); i++ {
		switch script[i] {
		case '(':
			depth++
			deepest = max(deepest, depth)
		case ')':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// shellOps returns the gated operations of a bash script, and false when
// the script does not parse.
func shellOps(script string) ([]gatedOp, bool) {
	if parenDepth(script) > maxShellNesting {
		return []gatedOp{{kind: EffectDestructive, reason: "opaque: subshells and substitutions nested too deeply to follow", text: script, opaque: true}}, true
	}
	f, ok := parseShell(script)
	if !ok {
		return nil, false
	}
	s := &shellScanner{src: script}
	s.stmts(f.Stmts, stdinSource{})
	return s.ops, true
}

func (s *shellScanner) add(kind EffectKind, reason, text string) {
	s.ops = append(s.ops, gatedOp{kind: kind, reason: reason, text: text})
}

// opaque records an operation whose effect cannot be determined without
// running it; it is gated like a destructive one.
func (s *shellScanner) opaque(reason, text string) {
	s.ops = append(s.ops, gatedOp{kind: EffectDestructive, reason: "opaque: " + reason, text: text, opaque: true})
}

// script classifies a literal script nested in the current one.
func (s *shellScanner) script(text, from string) { s.scriptIn(text, stdinSource{}, from) }

// scriptIn is script reading in (sh -c and eval inherit standard input).
func (s *shellScanner) scriptIn(text string, in stdinSource, from string) {
	if s.depth >= maxShellDepth {
		s.opaque("scripts nested too deeply to follow", from)
		return
	}
	f, ok := parseShell(text)
	if !ok {
		s.opaque("a nested script that does not parse", from)
		return
	}
	inner := &shellScanner{src: text, depth: s.depth + 1}
	inner.stmts(f.Stmts, in)
	s.ops = append(s.ops, inner.ops...)
}

// scriptWords returns the static words of a script that is one simple
// command (a git alias's expansion).
func scriptWords(script string) ([]shellWord, bool) {
	f, ok := parseShell(script)
	if !ok || len(f.Stmts) != 1 {
		return nil, false
	}
	c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(f.Stmts[0].Redirs) > 0 {
		return nil, false
	}
	words := make([]shellWord, len(c.Args))
	for i, a := range c.Args {
		words[i] = resolveWord(a, "", i == 0)
		if !words[i].static {
			return nil, false
		}
	}
	return words, true
}

func (s *shellScanner) source(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(s.src) || start > end {
		return ""
	}
	return s.src[start:end]
}

func (s *shellScanner) stmts(list []*syntax.Stmt, in stdinSource) {
	for _, st := range list {
		s.stmt(st, in)
	}
}

func (s *shellScanner) stmt(st *syntax.Stmt, in stdinSource) {
	if st == nil {
		return
	}
	for _, r := range st.Redirs {
		s.redirect(r, &in)
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			s.assign(a)
		}
		if len(c.Args) > 0 {
			s.call(c, in)
		}
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Stage by stage, each reading what the one before writes
			// (iteratively: a pipeline of thousands of stages stays linear).
			for _, stage := range pipeStages(st, nil) {
				s.stmt(stage, in)
				in = s.output(stage, in)
			}
			return
		}
		s.stmt(c.X, in)
		s.stmt(c.Y, in)
	case *syntax.Subshell:
		s.stmts(c.Stmts, in)
	case *syntax.Block:
		s.stmts(c.Stmts, in)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			s.stmts(c.Cond, in)
			s.stmts(c.Then, in)
		}
	case *syntax.WhileClause:
		s.stmts(c.Cond, in)
		s.stmts(c.Do, in)
	case *syntax.ForClause:
		s.nested(c.Loop)
		s.stmts(c.Do, in)
	case *syntax.CaseClause:
		s.word(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				s.word(p)
			}
			s.stmts(item.Stmts, in)
		}
	case *syntax.FuncDecl:
		// A function's body runs when it is called; classify it anyway.
		s.stmt(c.Body, stdinSource{})
	case *syntax.TimeClause:
		s.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		s.stmt(c.Stmt, in)
	case *syntax.DeclClause:
		for _, a := range c.Args {
			s.assign(a)
		}
	default: // arithmetic, [[ ]], let, test declarations: only substitutions run
		s.nested(c)
	}
}

func (s *shellScanner) assign(a *syntax.Assign) {
	if a.Value != nil {
		s.word(a.Value)
	}
	if a.Array != nil {
		s.nested(a.Array)
	}
	if a.Index != nil {
		s.nested(a.Index)
	}
}

func (s *shellScanner) redirect(r *syntax.Redirect, in *stdinSource) {
	s.word(r.Word)
	if r.Hdoc != nil {
		s.word(r.Hdoc)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		*in = wordInput(r.Hdoc, "a here-document")
		if r.Op == syntax.DashHdoc && in.static {
			in.text = stripTabs(in.text)
		}
	case syntax.WordHdoc:
		*in = wordInput(r.Word, "a here-string")
		in.text += "\n"
	case syntax.RdrIn:
		if w := resolveWord(r.Word, "", false); w.static {
			*in = stdinSource{} // a file: like running a script file
		} else {
			*in = stdinSource{present: true, what: "`" + clip(s.source(r.Word), 80) + "`"}
		}
	}
}

func stripTabs(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}

func wordInput(w *syntax.Word, what string) stdinSource {
	if w == nil {
		return stdinSource{present: true, static: true, what: what}
	}
	sw := resolveWord(w, "", false)
	if sw.static {
		return stdinSource{present: true, static: true, text: sw.text, what: what}
	}
	return stdinSource{present: true, what: what + " with expansions"}
}

// nested classifies the commands of the substitutions inside a node.
func (s *shellScanner) nested(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.CmdSubst:
			s.stmts(x.Stmts, stdinSource{})
			return false
		case *syntax.ProcSubst:
			s.stmts(x.Stmts, stdinSource{})
			return false
		}
		return true
	})
}

func (s *shellScanner) word(w *syntax.Word) {
	if w != nil {
		s.nested(w)
	}
}

// pipeStages flattens a pipeline into its stages, in order.
func pipeStages(st *syntax.Stmt, out []*syntax.Stmt) []*syntax.Stmt {
	for st != nil {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll || len(st.Redirs) > 0 {
			return append(out, st)
		}
		out = pipeStages(b.X, out)
		st = b.Y
	}
	return out
}

// output describes what a pipeline stage writes to the next one, given
// what it reads.
func (s *shellScanner) output(st *syntax.Stmt, in stdinSource) stdinSource {
	if st == nil {
		return stdinSource{present: true, what: "the output of a command"}
	}
	dyn := stdinSource{present: true, what: "the output of `" + clip(s.source(st), 80) + "`"}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			in = wordInput(r.Hdoc, "a here-document")
		case syntax.WordHdoc:
			in = wordInput(r.Word, "a here-string")
			in.text += "\n"
		case syntax.RdrIn:
			return dyn
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			for _, stage := range pipeStages(st, nil) {
				in = s.output(stage, in)
			}
			return in
		}
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return dyn
		}
		words := make([]shellWord, len(c.Args))
		for i, a := range c.Args {
			words[i] = resolveWord(a, "", i == 0)
		}
		if !words[0].static {
			return dyn
		}
		name := commandBase(words[0].text)
		switch name {
		case "echo":
			if text, ok := echoText(words[1:]); ok {
				return stdinSource{present: true, static: true, text: text, what: dyn.what}
			}
		case "printf":
			if len(words) == 2 && words[1].static && !strings.Contains(words[1].text, "%") {
				return stdinSource{present: true, static: true, text: unescapeEcho(words[1].text), what: dyn.what}
			}
		case "cat", "tee":
			if in.present && allFlagsOrFiles(words[1:], name == "tee") {
				return in
			}
		}
	}
	return dyn
}

// allFlagsOrFiles reports whether cat (no file operands) or tee (any file
// operands) passes its standard input through.
func allFlagsOrFiles(args []shellWord, tee bool) bool {
	for _, a := range args {
		if !a.static {
			return false
		}
		if !tee && !strings.HasPrefix(a.text, "-") {
			return false
		}
	}
	return true
}

func echoText(args []shellWord) (string, bool) {
	escapes := false
	var parts []string
	for i, a := range args {
		if !a.static {
			return "", false
		}
		if len(parts) == 0 && i == len(parts) && (a.text == "-n" || a.text == "-e" || a.text == "-E" || a.text == "-ne" || a.text == "-en") {
			escapes = escapes || strings.Contains(a.text, "e")
			continue
		}
		parts = append(parts, a.text)
	}
	text := strings.Join(parts, " ")
	if escapes {
		text = unescapeEcho(text)
	}
	return text + "\n", true
}

func unescapeEcho(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s)
}

// resolveWord removes quotes and escapes. A glob or brace expansion counts
// as dynamic only in a command name (an argument `*.o` is data).
func resolveWord(w *syntax.Word, src string, commandName bool) shellWord {
	var b strings.Builder
	out := shellWord{static: true}
	dynamic := func() {
		if out.static {
			out.static, out.prefix = false, b.String()
		}
	}
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if commandName && (strings.ContainsAny(p.Value, "*?[") || strings.Contains(p.Value, "{") && strings.ContainsAny(p.Value, ",.")) {
				dynamic()
			}
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(unescapeANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if lit, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
					continue
				}
				dynamic()
				b.WriteString("\x00")
			}
		default:
			dynamic()
			b.WriteString("\x00")
		}
	}
	out.text = b.String()
	return out
}

func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeANSIC decodes the common escapes of $'...' (\x41 and friends are
// kept as written: a command name spelled that way stays unknown).
func unescapeANSIC(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\'`, "'", `\"`, `"`, `\\`, `\`).Replace(s)
}

// commandBase is a command name without its directory (and .exe).
func commandBase(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(name, ".exe")
}

func (s *shellScanner) call(c *syntax.CallExpr, in stdinSource) {
	for _, a := range c.Args {
		s.word(a) // substitutions run whatever the command is
	}
	words := make([]shellWord, len(c.Args))
	for i, a := range c.Args {
		words[i] = resolveWord(a, "", i == 0)
		words[i].src = s.source(a)
	}
	text := s.source(c)
	name := words[0]
	if !name.static {
		// $d/bin/tool: only the directory is dynamic.
		i := strings.LastIndexByte(name.text, '/')
		if i < 0 || strings.ContainsAny(name.text[i:], "\x00*?[{") {
			s.opaque("the command name comes from "+dynamicWhat(c.Args[0])+", so what runs is not known", text)
			return
		}
		name.text, name.static = name.text[i+1:], true
		words[0] = name
	}
	s.argv(words, in, text)
}

func dynamicWhat(w *syntax.Word) string {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.CmdSubst:
			return "a command substitution"
		case *syntax.ParamExp:
			return "a variable"
		}
	}
	return "an expansion"
}
