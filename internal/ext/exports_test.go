package ext

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/pi_example_imports.txt from pi's examples")

// pendingExports are names pi's examples import that another part of the
// extension work provides (custom providers: registerApiProvider and the
// stream helpers); the export test reports them instead of failing.
var pendingExports = map[string]string{
	"registerApiProvider":         "custom providers",
	"streamSimpleAnthropic":       "custom providers",
	"streamSimpleOpenAIResponses": "custom providers",
}

const importsFile = "testdata/pi_example_imports.txt"

// piExamples is where pi's published example extensions are (.ci/run
// extracts the package); "" when they are not there.
func piExamples() string {
	dir := os.Getenv("RELAY_PI_PACKAGE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "relay-pi", "package")
	}
	dir = filepath.Join(dir, "examples", "extensions")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

var (
	namedImport = regexp.MustCompile(`(?s)import\s+(type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']`)
	keyMember   = regexp.MustCompile(`\bKey\.([A-Za-z0-9_]+)(\()?`)
)

// scanImports lists "module name" for every value the examples import
// from the API's modules, and "Key member" for every Key.member they use
// ("Key member(" when they call it).
func scanImports(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ts") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range namedImport.FindAllStringSubmatch(string(src), -1) {
			mod := m[3]
			if m[1] != "" || !(strings.HasPrefix(mod, "@mariozechner/pi-") || mod == "typebox" || mod == "@sinclair/typebox") {
				continue
			}
			for _, spec := range strings.Split(m[2], ",") {
				spec = strings.TrimSpace(spec)
				if spec == "" || strings.HasPrefix(spec, "type ") {
					continue
				}
				name, _, _ := strings.Cut(spec, " as ")
				seen[mod+" "+strings.TrimSpace(name)] = true
			}
		}
		for _, m := range keyMember.FindAllStringSubmatch(string(src), -1) {
			// Key.ctrlAlt("p") needs a function, Key.up a key id.
			seen["Key "+m[1]+m[2]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The checked-in list is what pi's examples import (so CI without the
// package still checks the exports); it is rewritten with -update.
func TestPiExampleImportsListed(t *testing.T) {
	dir := piExamples()
	if dir == "" {
		t.Skip("pi's examples are not there (set RELAY_PI_PACKAGE, or see .ci/run)")
	}
	got := strings.Join(scanImports(t, dir), "\n") + "\n"
	if *update {
		if err := os.WriteFile(importsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(importsFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is out of date with pi's examples (go test ./internal/ext -run TestPiExampleImportsListed -update)", importsFile)
	}
}

// Every value pi's examples import resolves to a defined export of the
// host's API module, and every Key member they use exists: jiti turns a
// missing named import into undefined, which fails only when used.
func TestAPIExportsPiExampleImports(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (CI installs it)")
	}
	raw, err := os.ReadFile(importsFile)
	if err != nil {
		t.Fatal(err)
	}
	script := `
const api = await import(process.argv[1]);
const missing = [];
for (const line of process.argv[2].split("\n").filter(Boolean)) {
	const [mod, name] = line.split(" ");
	const call = name.endsWith("(");
	const v = mod === "Key" ? api.Key?.[name.replace("(", "")] : api[name];
	if (v === undefined || (call && typeof v !== "function")) missing.push(line);
}
console.log(missing.join("\n"));
`
	abs, _ := filepath.Abs("host/api/index.mjs")
	out, err := exec.Command(node, "--input-type=module", "-e", script, abs, string(raw)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	missing := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		_, name, _ := strings.Cut(line, " ")
		missing[name] = true
		if why, ok := pendingExports[name]; ok {
			t.Logf("not exported yet (%s): %s", why, line)
			continue
		}
		t.Errorf("pi's examples import %s, which the API module does not export", line)
	}
	for name := range pendingExports {
		if !missing[name] && strings.Contains(string(raw), " "+name+"\n") {
			t.Errorf("%s is exported now: remove it from pendingExports", name)
		}
	}
}

// The API module's components, keys and helpers, tested in Node:
// testdata/api_node_test.mjs renders components to lines at known widths.
func TestAPIModuleNodeSide(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (CI installs it)")
	}
	if checkNodeVersion(node) != nil {
		t.Skipf("node is older than %d", MinNode)
	}
	out, err := exec.Command(node, "testdata/api_node_test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
