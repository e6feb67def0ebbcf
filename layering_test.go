package relay_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/relay-agent/relay"

// layers is design.md's table: a package may import only packages of a
// strictly lower layer (leaves at L0). Packages not listed inherit the layer
// of their nearest listed parent directory.
var layers = map[string]int{
	"cmd/relay":                        7,
	"bench":                            7,
	"bench/sessionbench":               7,
	"internal/cli":                     6,
	"internal/tui":                     5,
	"internal/tui/editor":              3,
	"internal/tui/transcript":          4,
	"internal/tui/markdown":            3,
	"internal/tui/markdown/lexers":     1,
	"internal/tui/markdown/mermaid":    0,
	"internal/tui/keymap":              2,
	"internal/tui/theme":               2,
	"internal/tui/tuitest":             6, // test helper that drives tui (L5)
	"internal/printmode":               5,
	"internal/jsonmode":                5,
	"internal/rpcmode":                 5,
	"internal/app":                     4,
	"internal/agent":                   3,
	"internal/compaction":              3,
	"internal/harness":                 3,
	"internal/laya":                    3,
	"internal/export":                  3,
	"internal/models":                  2,
	"internal/hooks":                   2,
	"internal/commands":                2,
	"internal/tool/builtin":            2,
	"internal/mcpclient":               2,
	"internal/settings":                2,
	"internal/resources":               2,
	"internal/tool":                    1,
	"internal/versioncheck":            1,
	"internal/session":                 1,
	"internal/jsonl":                   1,
	"internal/llm/anthropic":           1,
	"internal/llm/openai":              1,
	"internal/llm/responses":           1,
	"internal/llm/gemini":              1,
	"internal/llm/llmtest":             1,
	"internal/llm/llmtest/cmd/fakellm": 2,
	"internal/llm":                     0,
	"internal/llm/sse":                 0,
	"internal/config":                  0,
	"internal/fsx":                     0,
	"internal/shell":                   0,
	"internal/textdiff":                0,
	"internal/fuzzy":                   0,
	"internal/deps":                    0,
	"internal/changelog":               0,
	"internal/jsonc":                   0,
}

func layerOf(pkg string) (int, bool) {
	for p := pkg; p != "." && p != ""; p = filepath.Dir(p) {
		if l, ok := layers[p]; ok {
			return l, true
		}
	}
	return 0, false
}

// Front ends must not import each other (design.md).
var siblings = []string{"internal/printmode", "internal/jsonmode", "internal/rpcmode", "internal/tui"}

func TestPackageLayering(t *testing.T) {
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				if imports[pkg] == nil {
					imports[pkg] = map[string]bool{}
				}
				imports[pkg][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("package %s has no layer in layering_test.go", pkg)
			continue
		}
		for imp := range imports[pkg] {
			to, ok := layerOf(imp)
			if !ok {
				t.Errorf("package %s has no layer in layering_test.go", imp)
				continue
			}
			if strings.HasPrefix(imp, pkg+"/") || strings.HasPrefix(pkg, imp+"/") && to < from {
				continue
			}
			if to >= from {
				t.Errorf("%s (L%d) imports %s (L%d): only lower layers may be imported", pkg, from, imp, to)
			}
			for _, a := range siblings {
				for _, b := range siblings {
					if a != b && strings.HasPrefix(pkg, a) && strings.HasPrefix(imp, b) {
						t.Errorf("front end %s imports front end %s", pkg, imp)
					}
				}
			}
		}
	}
}
