package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Template is a prompt template: a Markdown file whose name (without .md)
// becomes a /command and whose body, with arguments substituted, is sent
// in place of the command (prompt-templates.md).
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	// Content is the body after the frontmatter, trimmed.
	Content  string
	FilePath string
	Source   SourceInfo
}

// maxAutoDescription bounds the description taken from the first line.
const maxAutoDescription = 60

// loadTemplateFile reads one template. Without a description in the
// frontmatter the first non-empty body line (cut at 60 characters) is used.
func loadTemplateFile(path string, src SourceInfo) (*Template, []Diagnostic) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{warn(path, fmt.Sprintf("read prompt template: %v", unwrapPathError(err)))}
	}
	fm, body, err := ParseFrontmatter(string(data))
	if err != nil {
		return nil, []Diagnostic{warn(path, err.Error())}
	}
	desc, _ := fm.String("description")
	if desc == "" {
		for _, line := range strings.Split(body, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if r := []rune(line); len(r) > maxAutoDescription {
				desc = string(r[:maxAutoDescription]) + "..."
			} else {
				desc = line
			}
			break
		}
	}
	hint, _ := fm.String("argument-hint")
	src.Path = path
	return &Template{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Description: desc, ArgumentHint: hint,
		Content: body, FilePath: path, Source: src}, nil
}

// collectTemplateFiles lists the direct .md children of a conventional
// prompts directory (no recursion), minus dot files and ignored ones.
func collectTemplateFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ig := newIgnorer(dir)
	ig.enter(dir, entries)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" || !strings.HasSuffix(name, ".md") {
			continue
		}
		full := filepath.Join(dir, name)
		if _, isFile := entryKind(dir, e); !isFile || ig.ignored(full, false) {
			continue
		}
		out = append(out, full)
	}
	return out
}

// collectMarkdownFiles lists .md files under dir recursively (settings
// entries naming a directory of templates), with the same skips as skill
// discovery.
func collectMarkdownFiles(dir string, c *canon) []string {
	return collectFiles(dir, c, []string{".md"})
}

// collectFiles lists the files under dir ending in one of suffixes,
// recursively, skipping dot entries, node_modules and ignored paths.
func collectFiles(dir string, c *canon, suffixes []string) []string {
	var out []string
	ig := newIgnorer(dir)
	seen := map[string]bool{} // symlinked directories may loop
	var walk func(d string)
	walk = func(d string) {
		real := c.path(d)
		if seen[real] {
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		ig.enter(d, entries)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			full := filepath.Join(d, name)
			isDir, isFile := entryKind(d, e)
			switch {
			case isDir:
				if !ig.ignored(full, true) {
					walk(full)
				}
			case isFile && hasSuffix(name, suffixes) && !ig.ignored(full, false):
				out = append(out, full)
			}
		}
	}
	walk(dir)
	return out
}

// ParseArgs splits a command's argument string shell-like: blanks
// separate arguments, single or double quotes group (and are removed).
func ParseArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	has := false
	for _, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '"' || c == '\'':
			quote, has = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if has {
				args = append(args, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(c)
			has = true
		}
	}
	if has {
		args = append(args, cur.String())
	}
	return args
}

// Substitute replaces argument placeholders in one left-to-right pass, so
// inserted values are never substituted again:
//
//	$1, $2, ...     one argument ("" when missing)
//	$@, $ARGUMENTS  all arguments joined with spaces
//	${N:-default}   argument N, or default when missing or empty
//	${@:-default}   all arguments, or default when there are none
//	${@:N}          arguments from position N (1-based)
//	${@:N:L}        L arguments from position N
func Substitute(content string, args []string) string {
	all := strings.Join(args, " ")
	arg := func(n int) string {
		if n >= 1 && n <= len(args) {
			return args[n-1]
		}
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(content); {
		c := content[i]
		if c != '$' || i+1 >= len(content) {
			b.WriteByte(c)
			i++
			continue
		}
		rest := content[i+1:]
		if v, n, ok := braced(rest, args, all, arg); ok {
			b.WriteString(v)
			i += 1 + n
			continue
		}
		switch {
		case rest[0] == '@':
			b.WriteString(all)
			i += 2
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(all)
			i += 1 + len("ARGUMENTS")
		case rest[0] >= '0' && rest[0] <= '9':
			j := 0
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(rest[:j])
			b.WriteString(arg(n))
			i += 1 + j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// braced handles the ${...} forms at the start of s (after the '$'); it
// returns the replacement and how many bytes of s it used.
func braced(s string, args []string, all string, arg func(int) string) (string, int, bool) {
	if !strings.HasPrefix(s, "{") {
		return "", 0, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0, false
	}
	inner := s[1:end]
	if target, def, ok := strings.Cut(inner, ":-"); ok {
		switch {
		case target == "@" || target == "ARGUMENTS":
			if all == "" {
				return def, end + 1, true
			}
			return all, end + 1, true
		case isDigits(target):
			n, _ := strconv.Atoi(target)
			if v := arg(n); v != "" {
				return v, end + 1, true
			}
			return def, end + 1, true
		}
		return "", 0, false
	}
	if after, ok := strings.CutPrefix(inner, "@:"); ok {
		startS, lenS, hasLen := strings.Cut(after, ":")
		if !isDigits(startS) || (hasLen && !isDigits(lenS)) {
			return "", 0, false
		}
		start, _ := strconv.Atoi(startS)
		start = max(start-1, 0)
		if start > len(args) {
			start = len(args)
		}
		stop := len(args)
		if hasLen {
			l, _ := strconv.Atoi(lenS)
			stop = min(start+l, len(args))
		}
		return strings.Join(args[start:stop], " "), end + 1, true
	}
	return "", 0, false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
