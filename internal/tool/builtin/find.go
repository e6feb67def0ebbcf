package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type findArgs struct {
	Pattern string  `json:"pattern" jsonschema:"Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"`
	Path    string  `json:"path,omitempty" jsonschema:"Directory to search in (default: current directory)"`
	Limit   float64 `json:"limit,omitempty" jsonschema:"Maximum number of results (default: 1000)"`
}

var findSchema = sync.OnceValue(tool.SchemaFor[findArgs])

const findDefaultLimit = 1000

// FindDetails is the find tool's details object.
type FindDetails struct {
	Truncation         *tool.Truncation `json:"truncation,omitempty"`
	ResultLimitReached int              `json:"resultLimitReached,omitempty"`
}

type findTool struct{ env Env }

func (t *findTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: "find",
		Description: "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. " +
			outputLimitNote(findDefaultLimit, "results"),
		Parameters: findSchema(),
	})
}

// findGlob is the fd-style glob: a pattern without "/" matches entry base
// names; one with "/" matches the full absolute path, with "**/" prefixed
// unless it starts with "/" or "**/" or is "**".
type findGlob struct {
	pattern  string
	fullPath bool
}

func newFindGlob(p string) (findGlob, error) {
	g := findGlob{pattern: p}
	if strings.Contains(p, "/") {
		g.fullPath = true
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "**/") && p != "**" {
			g.pattern = "**/" + p
		}
	}
	if !doublestar.ValidatePattern(g.pattern) {
		return g, fmt.Errorf("Invalid glob pattern: %s", p)
	}
	return g, nil
}

func (g findGlob) match(abs, name string) bool {
	if g.fullPath {
		ok, _ := doublestar.Match(g.pattern, filepath.ToSlash(abs))
		return ok
	}
	ok, _ := doublestar.Match(g.pattern, name)
	return ok
}

func (t *findTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("find", raw)
	pattern := a.String("pattern", true)
	path := a.String("path", false)
	limit := positiveLimit(a, findDefaultLimit)
	root, _, r := searchRoot(a, path, t.env.Cwd, rootOptions{dirOnly: true})
	if r != nil {
		return *r
	}
	glob, err := newFindGlob(pattern)
	if err != nil {
		return tool.Error(err.Error())
	}
	var (
		mu      sync.Mutex
		results []string
		count   atomic.Int64
	)
	err = walkTree(root, func(e walkEntry) error {
		if ctx.Err() != nil {
			return errStopWalk
		}
		if !glob.match(e.abs, e.name) {
			return nil
		}
		if count.Add(1) > int64(limit) {
			return errStopWalk
		}
		rel := filepath.ToSlash(e.abs[len(root)+1:])
		if e.isDir {
			rel += "/"
		}
		mu.Lock()
		results = append(results, rel)
		mu.Unlock()
		return nil
	})
	if ctx.Err() != nil {
		return tool.Error("Operation aborted")
	}
	if err != nil {
		return tool.Errorf("find: %v", err)
	}
	if len(results) == 0 {
		return tool.Text("No files found matching pattern")
	}
	slices.Sort(results)
	var limitNotice string
	reached := len(results) >= limit
	if reached {
		limitNotice = fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2)
	}
	return listResult(results, limitNotice, "", func(tr *tool.Truncation) any {
		d := FindDetails{Truncation: tr}
		if reached {
			d.ResultLimitReached = limit
		}
		return d
	})
}
