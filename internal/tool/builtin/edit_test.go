package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func readBack(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEditBasics(t *testing.T) {
	env := newEnv(t)
	ed := mustTool(t, "edit", env)
	p := writeFile(t, env.Cwd, "a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n")
	r := call(t, ed, map[string]any{"path": "a.go", "edits": []map[string]string{
		{"oldText": "return 1", "newText": "return 10"},
		{"oldText": "return 2", "newText": "return 20"},
	}})
	wantText(t, r, false, "Successfully replaced 2 block(s) in a.go.")
	if got := readBack(t, p); got != "package a\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int {\n\treturn 20\n}\n" {
		t.Errorf("content %q", got)
	}
	d := r.Details.(EditDetails)
	if d.FirstChangedLine != 4 || !strings.Contains(d.Diff, "- 4 \treturn 1\n+ 4 \treturn 10") ||
		!strings.HasPrefix(d.Patch, "--- a.go\n+++ a.go\n@@") {
		t.Errorf("details %+v", d)
	}
}

func TestEditLenientInputs(t *testing.T) {
	env := newEnv(t)
	ed := mustTool(t, "edit", env)
	p := writeFile(t, env.Cwd, "f.txt", "alpha beta gamma delta\n")
	for _, args := range []string{
		`{"path":"f.txt","edits":"[{\"oldText\":\"alpha\",\"newText\":\"ALPHA\"}]"}`,
		`{"path":"f.txt","edits":"{\"oldText\":\"beta\",\"newText\":\"BETA\"}"}`,
		`{"path":"f.txt","edits":{"oldText":"gamma","newText":"GAMMA"}}`,
		`{"path":"f.txt","oldText":"delta","newText":"DELTA"}`,
	} {
		if r := call(t, ed, args); r.IsError {
			t.Errorf("%s: %s", args, text(r))
		}
	}
	if got := readBack(t, p); got != "ALPHA BETA GAMMA DELTA\n" {
		t.Errorf("content %q", got)
	}
	wantText(t, call(t, ed, `{"path":"f.txt","edits":[]}`), true, "Edit tool input is invalid. edits must contain at least one replacement.")
	wantContains(t, call(t, ed, `{"path":"f.txt","edits":[{"oldText":"x"}]}`), true, "edits[0].newText: required string is missing")
	wantContains(t, call(t, ed, `{"path":"f.txt","edits":42}`), true, "edits: expected an array of {oldText, newText} objects")
}

func TestEditPreservesBOMAndCRLF(t *testing.T) {
	env := newEnv(t)
	ed := mustTool(t, "edit", env)
	p := writeFile(t, env.Cwd, "w.txt", "\uFEFFone\r\ntwo\r\nthree\r\n")
	r := call(t, ed, map[string]any{"path": "w.txt", "edits": []map[string]string{{"oldText": "one\ntwo", "newText": "uno\ndos"}}})
	if r.IsError {
		t.Fatal(text(r))
	}
	if got := readBack(t, p); got != "\uFEFFuno\r\ndos\r\nthree\r\n" {
		t.Errorf("content %q", got)
	}
}

func TestEditFuzzyMatch(t *testing.T) {
	env := newEnv(t)
	ed := mustTool(t, "edit", env)
	// trailing spaces and typographic quotes in the file; untouched lines keep their bytes
	orig := "keep “this”   \nsay(“hi”)  \nend\u00a0\n"
	p := writeFile(t, env.Cwd, "q.txt", orig)
	r := call(t, ed, map[string]any{"path": "q.txt", "edits": []map[string]string{{"oldText": `say("hi")`, "newText": `say("bye")`}}})
	if r.IsError {
		t.Fatal(text(r))
	}
	if got := readBack(t, p); got != "keep “this”   \nsay(\"bye\")\nend\u00a0\n" {
		t.Errorf("content %q", got)
	}
}

func TestEditErrors(t *testing.T) {
	env := newEnv(t)
	ed := mustTool(t, "edit", env)
	writeFile(t, env.Cwd, "e.go", "func main() {\n\tfmt.Println(\"a\")\n\tfmt.Println(\"a\")\n\tif x {\n\t\ty()\n\t}\n}\n")
	edit := func(edits ...[2]string) string {
		var es []map[string]string
		for _, e := range edits {
			es = append(es, map[string]string{"oldText": e[0], "newText": e[1]})
		}
		r := call(t, ed, map[string]any{"path": "e.go", "edits": es})
		if !r.IsError {
			t.Errorf("edit %v succeeded", edits)
		}
		return text(r)
	}
	if got := edit([2]string{`fmt.Println("a")`, "x"}); got != `Found 2 occurrences of the text in e.go. The text must be unique. Please provide more context to make it unique.` {
		t.Errorf("dup: %q", got)
	}
	if got := edit([2]string{"func main", "f"}, [2]string{`fmt.Println("a")`, "x"}); got != `Found 2 occurrences of edits[1] in e.go. Each oldText must be unique. Please provide more context to make it unique.` {
		t.Errorf("dup multi: %q", got)
	}
	if got := edit([2]string{"main() {\n\tfmt", "x"}, [2]string{"func main()", "y"}); got != "edits[1] and edits[0] overlap in e.go. Merge them into one edit or target disjoint regions." {
		t.Errorf("overlap: %q", got)
	}
	if got := edit([2]string{"", "x"}); got != "oldText must not be empty in e.go." {
		t.Errorf("empty: %q", got)
	}
	if got := edit([2]string{"if x {", "if x {"}); got != "No changes made to e.go. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected." {
		t.Errorf("no change: %q", got)
	}
	// indentation differs: spaces in oldText, tabs in the file
	got := edit([2]string{"    if x {\n        y()\n    }", "z"})
	want := "Could not find the exact text in e.go. The old text must match exactly including all whitespace and newlines.\n" +
		"Closest match is around line 4:\n  2: \tfmt.Println(\"a\")\n  3: \tfmt.Println(\"a\")\n  4: \tif x {\n  5: \t\ty()\n  6: \t}\n  7: }\n  8: \n" +
		"Line 4 differs: indentation differs (file: 1 tabs, oldText: 4 spaces).\n  file:    \"\\tif x {\"\n  oldText: \"    if x {\""
	if got != want {
		t.Errorf("not found:\n%s\nwant:\n%s", got, want)
	}
	got = edit([2]string{"func main", "g"}, [2]string{"totally absent text here", "x"})
	if !strings.HasPrefix(got, "Could not find edits[1] in e.go.") || !strings.Contains(got, "File starts with:\n  1: func main() {") {
		t.Errorf("not found multi: %q", got)
	}
	got = edit([2]string{"\tif x {\n\t\tz()", "q"})
	if !strings.Contains(got, "Line 5 differs: the text differs.\n  file:    \"\\t\\ty()\"\n  oldText: \"\\t\\tz()\"") {
		t.Errorf("content diff: %q", got)
	}
	r := call(t, ed, map[string]any{"path": "missing.go", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}})
	wantText(t, r, true, "Could not edit file: missing.go. Error code: ENOENT.")
}

func TestEditAndWriteSerialized(t *testing.T) {
	env := newEnv(t)
	p := writeFile(t, env.Cwd, "n.txt", "[0]\n")
	var wg sync.WaitGroup
	// each goroutine appends one line through a separate tool instance; lost
	// updates would show as missing lines
	for i := 1; i <= 20; i++ {
		wg.Add(1)
		deadline := time.Now().Add(20 * time.Second)
		go func(i int) {
			defer wg.Done()
			ed := mustTool(t, "edit", env)
			for {
				cur := readBack(t, p)
				if !strings.HasSuffix(cur, "\n") {
					continue // caught a write in progress
				}
				last := cur[strings.LastIndexByte(cur[:len(cur)-1], '\n')+1:]
				r := ed.Execute(context.Background(), []byte(`{"path":"n.txt","edits":[{"oldText":`+quote(last)+`,"newText":`+quote(last+"["+itoa(i)+"]\n")+`}]}`), nil)
				if !r.IsError || time.Now().After(deadline) {
					return
				}
			}
		}(i)
	}
	wg.Wait()
	if got := strings.Count(readBack(t, p), "\n"); got != 21 {
		t.Errorf("lines = %d, want 21:\n%s", got, readBack(t, p))
	}
}

func quote(s string) string {
	b := strings.Builder{}
	b.WriteString(`"`)
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"`)
	return b.String()
}

func TestWrite(t *testing.T) {
	env := newEnv(t)
	wr := mustTool(t, "write", env)
	wantText(t, call(t, wr, map[string]any{"path": "deep/er/x.txt", "content": "hi"}), false, "Successfully wrote to deep/er/x.txt")
	if got := readBack(t, filepath.Join(env.Cwd, "deep/er/x.txt")); got != "hi" {
		t.Errorf("content %q", got)
	}
	os.Mkdir(filepath.Join(env.Cwd, "adir"), 0o755)
	wantText(t, call(t, wr, map[string]any{"path": "adir", "content": "x"}), true, "Could not write file: adir. It is a directory.")
	wantContains(t, call(t, wr, `{"path":"x"}`), true, "content: required string is missing")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantText(t, callCtx(t, ctx, wr, map[string]any{"path": "y", "content": "x"}), true, "Operation aborted")
}
