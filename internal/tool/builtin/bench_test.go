package builtin

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree writes dirs×files source-like files of about 8 KB, plus an
// ignored node_modules, and returns the root.
func benchTree(b *testing.B, dirs, files int) string {
	b.Helper()
	root := b.TempDir()
	words := strings.Fields("func return if else for range var const type struct handler request response cache token stream")
	r := rand.New(rand.NewSource(1))
	write := func(dir string) {
		os.MkdirAll(dir, 0o755)
		for f := 0; f < files; f++ {
			var sb strings.Builder
			for sb.Len() < 8192 {
				for w := 0; w < 8; w++ {
					sb.WriteString(words[r.Intn(len(words))])
					fmt.Fprintf(&sb, "%d ", r.Intn(1000))
				}
				if r.Intn(5000) == 0 {
					sb.WriteString("RELAYNEEDLE")
				}
				sb.WriteByte('\n')
			}
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(sb.String()), 0o644)
		}
	}
	for d := 0; d < dirs; d++ {
		write(filepath.Join(root, fmt.Sprintf("d%02d", d/10), fmt.Sprintf("s%02d", d%10)))
	}
	write(filepath.Join(root, "node_modules", "dep"))
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n"), 0o644)
	return root
}

func benchTool(b *testing.B, name, root, args string) {
	t, err := New(name, Env{Cwd: root})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := t.Execute(context.Background(), []byte(args), nil); r.IsError {
			b.Fatal(r.Content.PlainText())
		}
	}
}

func BenchmarkGrep(b *testing.B) {
	root := benchTree(b, 40, 50) // ~16 MB
	b.Run("literal", func(b *testing.B) { benchTool(b, "grep", root, `{"pattern":"RELAYNEEDLE","limit":100000}`) })
	b.Run("regex-literal", func(b *testing.B) {
		benchTool(b, "grep", root, `{"pattern":"cache\\d+ (token|stream)\\d+","limit":100000}`)
	})
	b.Run("regex", func(b *testing.B) {
		benchTool(b, "grep", root, `{"pattern":"[a-z]+\\d{3} [a-z]+\\d{3} [a-z]+9{3}","limit":100000}`)
	})
}

func BenchmarkFind(b *testing.B) {
	root := benchTree(b, 40, 50)
	b.Run("basename", func(b *testing.B) { benchTool(b, "find", root, `{"pattern":"*.go","limit":100000}`) })
	b.Run("fullpath", func(b *testing.B) { benchTool(b, "find", root, `{"pattern":"d0*/**/f00*.go","limit":100000}`) })
}

// BenchmarkBash compares one bash tool call with spawning the same shell
// directly; the difference is the tool's overhead per call.
func BenchmarkBash(b *testing.B) {
	dir := b.TempDir()
	b.Run("tool", func(b *testing.B) { benchTool(b, "bash", dir, `{"command":"true"}`) })
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("/bin/bash", "-c", "true")
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("some line of text here\n", 400000)), 0o644)
	benchTool(b, "read", dir, `{"path":"big.txt","offset":200000,"limit":100}`)
}

// BenchmarkEditSave measures the save of an edit to a 1 MB and a 300 MB
// file: read, change one line and write back crash-safely (a temp file,
// fsync, rename, and the concurrent-change checks), against reading and
// rewriting it in place without fsync, as edit did before. The whole edit
// tool (which also computes the diff) is measured too.
//
//	go test -run '^$' -bench EditSave -benchtime 5x ./internal/tool/builtin/
func BenchmarkEditSave(b *testing.B) {
	for _, size := range []int{1 << 20, 300 << 20} {
		dir := b.TempDir()
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, append([]byte("marker A\n"), bigText(size)...), 0o644); err != nil {
			b.Fatal(err)
		}
		cur := "marker A"
		toggle := func() (string, string) {
			old := cur
			cur = map[string]string{"marker A": "marker B", "marker B": "marker A"}[cur]
			return old, cur
		}
		name := fmt.Sprintf("%dMB", size>>20)
		b.Run(name+"/save-atomic", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				o, n := toggle()
				snap, err := readSnapshot(p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := replaceFile(p, bytes.Replace(snap.data, []byte(o), []byte(n), 1), snap); err != nil {
					b.Fatal(err)
				}
				snap.close()
			}
		})
		b.Run(name+"/save-in-place", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				o, n := toggle()
				data, err := os.ReadFile(p)
				if err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, bytes.Replace(data, []byte(o), []byte(n), 1), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/edit-tool", func(b *testing.B) {
			ed, _ := New("edit", Env{Cwd: dir})
			for i := 0; i < b.N; i++ {
				o, n := toggle()
				if r := ed.Execute(context.Background(), []byte(`{"path":"f.txt","edits":[{"oldText":"`+o+`","newText":"`+n+`"}]}`), nil); r.IsError {
					b.Fatal(r.Content.PlainText())
				}
			}
		})
	}
}
