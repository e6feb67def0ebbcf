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

// layers is design.md's table, enforced the way Go's own
// go/build/deps_test.go does: a package may import only packages of a
// strictly lower layer (leaves at L0), parents and children included.
// Packages not listed inherit the layer of their nearest listed parent
// directory.
var layers = map[string]int{
	"cmd/relay":                        70,
	"bench":                            70,
	"bench/sessionbench":               70,
	"internal/cli":                     60,
	"internal/tui":                     50,
	"internal/tui/editor":              30,
	"internal/tui/transcript":          40,
	"internal/tui/markdown":            30,
	"internal/tui/markdown/lexers":     10,
	"internal/tui/markdown/mermaid":    0,
	"internal/tui/keymap":              20,
	"internal/tui/theme":               20,
	"internal/tui/tuitest":             60, // test helper that drives tui (L50)
	"internal/printmode":               50,
	"internal/jsonmode":                50,
	"internal/rpcmode":                 50,
	"internal/app":                     40,
	"internal/app/modetest":            42, // checks shared by the front ends' tests
	"internal/layaauto":                45, // laya/auto on the runtime: imports app, registers on its seam
	"internal/sessionshare":            45, // /export /import /copy /share on the runtime's registry
	"internal/apikeys":                 45, // /login /logout on the runtime's registry
	"internal/bugreport":               45, // /bug /debug on the runtime's registry
	"internal/cachewarm":               45, // prompt-cache refreshes and miss notices on the seam
	"internal/agent":                   30,
	"internal/compaction":              30,
	"internal/harness":                 30,
	"internal/laya":                    30,
	"internal/llamarouter":             30, // /llama: the llama.cpp router (runs llama-server)
	"internal/export":                  30,
	"internal/models":                  20,
	"internal/hooks":                   20,
	"internal/commands":                20,
	"internal/tool/builtin":            20,
	"internal/mcp":                     30,
	"internal/codemode":                30,
	"internal/toolsearch":              25, // codemode (30) ranks with its index
	"internal/packages":                25, // package install and resource resolution, above settings and resources
	"internal/ext":                     45, // the extension host: registers on the seams, acts on the runtime
	"internal/auth":                    25, // subscription sign-in: implements models.OAuthProvider
	"internal/settings":                20,
	"internal/resources":               20,
	"internal/tool":                    10,
	"internal/versioncheck":            10,
	"internal/session":                 10,
	"internal/jsonl":                   10,
	"internal/llm/anthropic":           10,
	"internal/llm/openai":              10,
	"internal/llm/responses":           10,
	"internal/llm/gemini":              10,
	"internal/llm/bedrock":             10, // Amazon Bedrock ConverseStream (AWS SDK for credentials, signing, endpoints)
	"internal/llm/mistral":             10,
	"internal/llm/vertex":              12, // Vertex AI: endpoints and Google credentials around the gemini client
	"internal/llm/cloudcode":           12, // Cloud Code Assist (Gemini CLI, Antigravity): the envelope around the gemini client
	"internal/llm/llmtest":             10,
	"internal/llm/llmtest/cmd/fakellm": 20,
	"internal/llm/llamacpp":            10, // llama-server model discovery (net/http via internal/llm)
	"internal/llm":                     5,  // above its own leaf sse
	"internal/llm/sse":                 0,
	"internal/config":                  0,
	"internal/fsx":                     0,
	"internal/shell":                   0,
	"internal/browser":                 0, // opens sign-in pages ($BROWSER, open, xdg-open)
	"internal/textdiff":                0,
	"internal/fuzzy":                   0,
	"internal/deps":                    0,
	"internal/changelog":               0,
	"internal/jsonc":                   0,
	"internal/jsonx":                   0, // the one JSON scanner and table decoder (llm, session)
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

// external says which of the project's packages may import a third-party
// module or a sensitive standard package (path prefix of the import ->
// package prefixes allowed to import it). Anything else importing it fails.
var external = []struct {
	imp     string
	allowed []string
	why     string
}{
	{"charm.land/", []string{"internal/tui", "internal/deps"}, "terminal UI libraries stay in the TUI"},
	{"github.com/aws/", []string{"internal/llm/bedrock"}, "the AWS SDK serves the Bedrock client only"},
	{"github.com/charmbracelet/", []string{"internal/tui", "internal/deps"}, "terminal UI libraries stay in the TUI"},
	{"net/http", []string{
		"internal/llm",          // provider wire clients
		"internal/laya",         // System One classifier client
		"internal/mcp",          // streamable HTTP MCP servers and their OAuth
		"internal/auth",         // subscription sign-in
		"internal/ext",          // extension host (custom providers)
		"internal/hooks",        // http.Header in the provider-header hook
		"internal/cli",          // the httpProxy client; content sniffing of @files
		"internal/export",       // share viewer links
		"internal/versioncheck", // the latest-release check (off with --offline)
		"cmd/", "bench/",
	}, "network access only where design.md names it"},
	{"os/exec", []string{
		"internal/shell", "internal/tool", // the bash tool and user shell commands
		"internal/harness",      // git probe for change sizes
		"internal/laya",         // docker runtime
		"internal/llamarouter",  // the llama-server router /llama starts
		"internal/models",       // !command credentials
		"internal/session",      // trash for deleted sessions
		"internal/tui",          // clipboard tools, external editor
		"internal/sessionshare", // clipboard copy and gh for /share (runners of those commands)
		"internal/mcp",          // stdio MCP servers
		"internal/ext",          // the Node extension host, npm and git for packages
		"internal/packages",     // npm and git for relay install/remove/update
		"internal/browser",      // the browser opened for sign-in pages
		"cmd/", "bench/",
	}, "processes start only in the shell, the tools and the named runners"},
}

func allowedExternal(pkg, imp string) (ok bool, why string) {
	for _, r := range external {
		match := strings.HasPrefix(imp, r.imp)
		if !strings.HasSuffix(r.imp, "/") {
			match = imp == r.imp || strings.HasPrefix(imp, r.imp+"/")
		}
		if !match {
			continue
		}
		for _, a := range r.allowed {
			a = strings.TrimSuffix(a, "/")
			if pkg == a || strings.HasPrefix(pkg, a+"/") {
				return true, ""
			}
		}
		return false, r.why
	}
	return true, ""
}

// imports reads the non-test imports of every package of the module.
func readImports(t *testing.T) (own, other map[string]map[string]bool) {
	own, other = map[string]map[string]bool{}, map[string]map[string]bool{}
	add := func(m map[string]map[string]bool, pkg, imp string) {
		if m[pkg] == nil {
			m[pkg] = map[string]bool{}
		}
		m[pkg][imp] = true
	}
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
				add(own, pkg, rest)
			} else {
				add(other, pkg, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return own, other
}

func sortedKeys(m map[string]map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestPackageLayering(t *testing.T) {
	own, other := readImports(t)
	for _, pkg := range sortedKeys(own) {
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("package %s has no layer in layering_test.go", pkg)
			continue
		}
		for imp := range own[pkg] {
			to, ok := layerOf(imp)
			if !ok {
				t.Errorf("package %s has no layer in layering_test.go", imp)
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
	for _, pkg := range sortedKeys(other) {
		for imp := range other[pkg] {
			if ok, why := allowedExternal(pkg, imp); !ok {
				t.Errorf("%s imports %s: %s (layering_test.go external)", pkg, imp, why)
			}
		}
	}
}

// The rule table itself must catch what it is meant to catch.
func TestExternalRules(t *testing.T) {
	for _, tt := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"internal/llm", "charm.land/lipgloss/v2", false},
		{"internal/tui/editor", "charm.land/bubbletea/v2", true},
		{"internal/session", "net/http", false},
		{"internal/llm/anthropic", "net/http", true},
		{"internal/session", "net/http/httputil", false},
		{"internal/agent", "os/exec", false},
		{"internal/tool/builtin", "os/exec", true},
		{"internal/app", "os/exec", false}, // the core runs no process: features do
		{"internal/agent", "net/url", true},
		{"internal/textdiff", "github.com/aymanbagabas/go-udiff", true},
		{"internal/llm/bedrock", "github.com/aws/aws-sdk-go-v2/config", true},
		{"internal/models", "github.com/aws/aws-sdk-go-v2/config", false},
	} {
		if ok, _ := allowedExternal(tt.pkg, tt.imp); ok != tt.ok {
			t.Errorf("%s importing %s: allowed=%v, want %v", tt.pkg, tt.imp, ok, tt.ok)
		}
	}
	// Parents and children obey the layers too (no exemption): a leaf
	// importing its own child at the same layer is a violation.
	if from, _ := layerOf("internal/tui"); from <= 0 {
		t.Fatal("table")
	}
}
