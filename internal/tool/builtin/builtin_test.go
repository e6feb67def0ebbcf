package builtin

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n%s", name, got)
	}
}

// TestSpecsGolden pins every tool's name, description and JSON Schema: they
// are part of the contract models learn from.
func TestSpecsGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, n := range []string{"read", "bash", "edit", "write", "grep", "find", "ls"} {
		tl := mustTool(t, n, Env{})
		s := tl.Spec()
		if s.Name != n {
			t.Errorf("spec name %q for %q", s.Name, n)
		}
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "specs.golden.json", buf.Bytes())
}

func TestNamesAndNew(t *testing.T) {
	names := Names()
	if !slices.Equal(names[:7], []string{"read", "bash", "edit", "write", "grep", "find", "ls"}) {
		t.Errorf("names %v", names)
	}
	if _, err := New("nope", Env{}); err == nil {
		t.Error("unknown tool accepted")
	}
	r, err := NewRegistry(Env{}, "read", "ls")
	if err != nil || len(r.Specs()) != 2 {
		t.Errorf("registry %v %v", r, err)
	}
	if !slices.Contains(names, "powershell") {
		if _, err := New("powershell", Env{}); err == nil {
			t.Error("powershell created without PowerShell installed")
		}
	}
}

// TestGrepGolden runs grep over a fixed tree and compares the full output.
func TestGrepGolden(t *testing.T) {
	env := grepTree(t)
	g := mustTool(t, "grep", env)
	var buf bytes.Buffer
	for _, args := range []string{
		`{"pattern":"needle","context":1}`,
		`{"pattern":"(?i)needle\\s+\\w+","limit":10}`,
		`{"pattern":"package","glob":"src/**"}`,
	} {
		r := call(t, g, args)
		buf.WriteString("## " + args + "\n" + text(r) + "\n")
		if r.Details != nil {
			buf.WriteString("details: " + detailsJSON(t, r) + "\n")
		}
	}
	golden(t, "grep.golden.txt", buf.Bytes())
}
