package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type grepArgs struct {
	Pattern    string  `json:"pattern" jsonschema:"Search pattern (regex or literal string)"`
	Path       string  `json:"path,omitempty" jsonschema:"Directory or file to search (default: current directory)"`
	Glob       string  `json:"glob,omitempty" jsonschema:"Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"`
	IgnoreCase bool    `json:"ignoreCase,omitempty" jsonschema:"Case-insensitive search (default: false)"`
	Literal    bool    `json:"literal,omitempty" jsonschema:"Treat pattern as literal string instead of regex (default: false)"`
	Context    float64 `json:"context,omitempty" jsonschema:"Number of lines to show before and after each match (default: 0)"`
	Limit      float64 `json:"limit,omitempty" jsonschema:"Maximum number of matches to return (default: 100)"`
}

var grepSchema = sync.OnceValue(tool.SchemaFor[grepArgs])

const grepDefaultLimit = 100

// GrepDetails is the grep tool's details object.
type GrepDetails struct {
	Truncation        *tool.Truncation `json:"truncation,omitempty"`
	MatchLimitReached int              `json:"matchLimitReached,omitempty"`
	LinesTruncated    bool             `json:"linesTruncated,omitempty"`
}

type grepTool struct{ env Env }

func (t *grepTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: "grep",
		Description: "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. " +
			outputLimitNote(grepDefaultLimit, "matches") + fmt.Sprintf(" Long lines are truncated to %d chars.", tool.GrepMaxLineLength),
		Parameters: grepSchema(),
	})
}

// fileGlob filters files by a ripgrep-style glob: without "/" it matches
// the base name, with "/" the path relative to the search root; a leading
// "!" excludes.
type fileGlob struct {
	pattern string
	negate  bool
	path    bool
}

func newFileGlob(g string) (*fileGlob, error) {
	if g == "" {
		return nil, nil
	}
	f := &fileGlob{pattern: g}
	if strings.HasPrefix(f.pattern, "!") {
		f.negate, f.pattern = true, f.pattern[1:]
	}
	f.pattern = strings.TrimPrefix(f.pattern, "/")
	f.path = strings.Contains(f.pattern, "/")
	if f.pattern == "" || !doublestar.ValidatePattern(f.pattern) {
		return nil, fmt.Errorf("Invalid glob pattern: %s", g)
	}
	return f, nil
}

func (f *fileGlob) allows(rel, name string) bool {
	if f == nil {
		return true
	}
	subject := name
	if f.path {
		subject = rel
	}
	ok, _ := doublestar.Match(f.pattern, subject)
	return ok != f.negate
}

type grepFile struct {
	rel   string
	lines []string // formatted output lines
}

type grepRun struct {
	matcher   *lineMatcher
	context   int
	limit     int
	count     atomic.Int64
	truncLine atomic.Bool
	outBytes  atomic.Int64 // bytes formatted so far; past the output cap matches are only counted
	mu        sync.Mutex
	files     []grepFile
	ctx       context.Context
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256*1024); return &b }}

func cleanLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if bytes.IndexByte(b, '\r') >= 0 {
		b = bytes.ReplaceAll(b, []byte{'\r'}, nil)
	}
	return string(b)
}

func (t *grepTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("grep", raw)
	pattern := a.String("pattern", true)
	path := a.String("path", false)
	globArg := a.String("glob", false)
	ignoreCase := a.Bool("ignoreCase")
	literal := a.Bool("literal")
	contextLines, _ := a.Int("context")
	limit := positiveLimit(a, grepDefaultLimit)
	if contextLines < 0 {
		a.Fail("context", "expected a non-negative integer, got %d", contextLines)
	}
	root, st, r := searchRoot(a, path, t.env.Cwd, rootOptions{})
	if r != nil {
		return *r
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		if path == "" {
			path = "."
		}
		return tool.Errorf("Cannot search %s: it is a %s, not a regular file.", path, fsx.Kind(st.Mode()))
	}
	m, err := newLineMatcher(pattern, literal, ignoreCase)
	if err != nil {
		return tool.Errorf("Invalid regex pattern: %v. Use literal=true to search for the text as-is.", err)
	}
	glob, err := newFileGlob(globArg)
	if err != nil {
		return tool.Error(err.Error())
	}
	g := &grepRun{matcher: m, context: contextLines, limit: limit, ctx: ctx}
	if !st.IsDir() {
		g.searchFile(root, filepath.Base(root))
	} else {
		err = walkTree(root, func(e walkEntry) error {
			if ctx.Err() != nil {
				return errStopWalk
			}
			if e.isDir || !e.typ.IsRegular() {
				return nil
			}
			rel := filepath.ToSlash(e.abs[len(root)+1:])
			if !glob.allows(rel, e.name) {
				return nil
			}
			if !g.searchFile(e.abs, rel) {
				return errStopWalk
			}
			return nil
		})
		if err != nil && ctx.Err() == nil {
			return tool.Errorf("grep: %v", err)
		}
	}
	if ctx.Err() != nil {
		return tool.Error("Operation aborted")
	}
	return g.result()
}

func (g *grepRun) result() tool.Result {
	engine := engineNotice()
	if len(g.files) == 0 {
		if engine != "" {
			return tool.Text("No matches found\n\n[" + engine + "]")
		}
		return tool.Text("No matches found")
	}
	slices.SortFunc(g.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	var lines []string
	for _, f := range g.files {
		lines = append(lines, f.lines...)
	}
	var limitNotice, lineNotice string
	reached := g.count.Load() >= int64(g.limit)
	if reached {
		limitNotice = fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", g.limit, g.limit*2)
	}
	linesTruncated := g.truncLine.Load()
	if linesTruncated {
		lineNotice = fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", tool.GrepMaxLineLength)
	}
	if engine != "" {
		if lineNotice != "" {
			lineNotice += ". "
		}
		lineNotice += engine
	}
	return listResult(lines, limitNotice, lineNotice, func(tr *tool.Truncation) any {
		d := GrepDetails{Truncation: tr, LinesTruncated: linesTruncated}
		if reached {
			d.MatchLimitReached = g.limit
		}
		return d
	})
}
