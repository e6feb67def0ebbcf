package builtin

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func withGrepChunk(t *testing.T, n int) {
	old := grepChunk
	grepChunk = n
	t.Cleanup(func() { grepChunk = old })
}

// Searching a file a small chunk at a time gives the same result as
// searching it whole, context lines included.
func TestGrepChunkedMatchesWhole(t *testing.T) {
	env := newEnv(t)
	r := rand.New(rand.NewSource(7))
	words := []string{"alpha", "beta", "needle", "gamma", "Needle", "x", "", "needles", "\tindent", "café"}
	for i := 0; i < 80; i++ {
		words = append(words, fmt.Sprint("w", i))
	}
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for l := 0; l < 400; l++ {
			n := r.Intn(12)
			if r.Intn(40) == 0 {
				n = 200 + r.Intn(1500) // long lines, under half a chunk
			}
			for w := 0; w < n; w++ {
				b.WriteString(words[r.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
		}
		content := b.String()
		if f%2 == 1 {
			content = strings.TrimSuffix(content, "\n")
		}
		writeFile(t, env.Cwd, fmt.Sprintf("f%d.txt", f), content)
	}
	g := mustTool(t, "grep", env)
	whole := grepChunk
	t.Cleanup(func() { grepChunk = whole })
	cases := []map[string]any{
		{"pattern": "needle", "literal": true, "limit": 100000},
		{"pattern": "Needle", "literal": true, "context": 2, "limit": 100000},
		{"pattern": `^needle`, "limit": 100000},
		{"pattern": `needle $`, "context": 1, "limit": 100000},
		{"pattern": `GAM+A w\d `, "ignoreCase": true, "context": 3, "limit": 100000},
		{"pattern": `caf. w\d+`, "limit": 100000},
		{"pattern": "beta", "limit": 37},
	}
	for _, c := range cases {
		grepChunk = 1 << 30
		want := text(call(t, g, c))
		grepChunk = 16 << 10
		got := text(call(t, g, c))
		if got != want {
			t.Errorf("%v: chunked result differs (%d vs %d bytes)", c, len(got), len(want))
		}
		// under the output cap, which files fill it first is a race
		if len(want) > 49<<10 || strings.Count(want, "\n") < 20 {
			t.Errorf("%v: %d bytes, %d lines: not a useful comparison", c, len(want), strings.Count(want, "\n"))
		}
	}
}

// A line longer than the buffer is searched window by window: a match
// anywhere in it, across a window boundary too, is found, anchors hold
// only at the line's real ends, and the lines after it keep their numbers.
func TestGrepLineLongerThanBuffer(t *testing.T) {
	withGrepChunk(t, 16<<10) // windows of 16 KiB, 2 KiB overlap
	env := newEnv(t)
	long := strings.Repeat("abcdefgh", 40000) // 320 KB
	for name, at := range map[string]int{"start": 0, "boundary": 16<<10 - 3, "middle": 150001, "end": len(long)} {
		line := long[:at] + "NEEDLE" + long[at:]
		writeFile(t, env.Cwd, name+".txt", "first\n"+line+"\nafter NEEDLE\n"+line)
	}
	writeFile(t, env.Cwd, "none.txt", "first\n"+long+"\nlast\n")
	g := mustTool(t, "grep", env)
	trunc := "... [truncated]"
	headOf := func(s string) string { return s[:500] + trunc }
	got := text(call(t, g, map[string]any{"pattern": "NEEDLE", "literal": true}))
	var want []string
	for _, name := range []string{"boundary", "end", "middle", "start"} {
		at := map[string]int{"start": 0, "boundary": 16<<10 - 3, "middle": 150001, "end": len(long)}[name]
		line := long[:at] + "NEEDLE" + long[at:]
		want = append(want, name+".txt:2: "+headOf(line), name+".txt:3: after NEEDLE", name+".txt:4: "+headOf(line))
	}
	if w := strings.Join(want, "\n") + "\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"; got != w {
		t.Errorf("literal:\n%.600s\nwant\n%.600s", got, w)
	}
	if got := text(call(t, g, map[string]any{"pattern": `N[E]EDLE`, "glob": "boundary.txt"})); !strings.HasPrefix(got, "boundary.txt:2: abcdefgh") {
		t.Errorf("regex across a window boundary: %.100s", got)
	}
	// anchors: only the real line start and end count, not window edges
	if got := text(call(t, g, map[string]any{"pattern": `^abcd`, "glob": "none.txt"})); !strings.HasPrefix(got, "none.txt:2: abcd") {
		t.Errorf("^ at line start: %.100s", got)
	}
	if got := text(call(t, g, map[string]any{"pattern": `^efgh`, "glob": "none.txt"})); got != "No matches found" {
		t.Errorf("^ matched at a window edge: %.100s", got)
	}
	if got := text(call(t, g, map[string]any{"pattern": `defgh$`, "glob": "none.txt"})); !strings.HasPrefix(got, "none.txt:2: abcd") {
		t.Errorf("$ at line end: %.100s", got)
	}
	if got := text(call(t, g, map[string]any{"pattern": `abcd$`, "glob": "none.txt"})); got != "No matches found" {
		t.Errorf("$ matched at a window edge: %.100s", got)
	}
	// the long line as context is shown cut, like a match line
	got = text(call(t, g, map[string]any{"pattern": "^last", "context": 1, "glob": "none.txt"}))
	if want := "none.txt-2- " + headOf(long) + "\nnone.txt:3: last\nnone.txt-4- "; !strings.HasPrefix(got, want) {
		t.Errorf("context:\n%.700s\nwant\n%.700s", got, want)
	}
	// a NUL past the first chunk still makes the file binary
	writeFile(t, env.Cwd, "late-binary.txt", "NEEDLE\n"+long+"\x00\n")
	if got := text(call(t, g, map[string]any{"pattern": "NEEDLE", "literal": true, "glob": "late-binary.txt"})); got != "No matches found" {
		t.Errorf("binary: %.100s", got)
	}
}

// A 64 MiB one-line file costs a bounded buffer, not its size.
func TestGrepHugeLineBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	env := newEnv(t)
	line := strings.Repeat("0123456789abcdef", 4<<20) + " tail-needle"
	if err := os.WriteFile(filepath.Join(env.Cwd, "one-line.txt"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	line = ""
	g := mustTool(t, "grep", env)
	for _, args := range []map[string]any{
		{"pattern": "tail-needle", "literal": true},
		{"pattern": `tail-n[e]+dle$`},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := text(call(t, g, args))
		runtime.ReadMemStats(&after)
		if !strings.HasPrefix(got, "one-line.txt:1: 0123456789abcdef") {
			t.Errorf("%v: %.100s", args, got)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("%v: grep allocated %d MB for a 64 MB one-line file", args, alloc>>20)
		}
	}
}
