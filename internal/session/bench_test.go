package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// benchSession returns a session file: $RELAY_BENCH_SESSION when set (the
// 50 MB file bench/session.sh generates), else a generated ~8 MB one.
func benchSession(b *testing.B) string {
	if p := os.Getenv("RELAY_BENCH_SESSION"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "bench.jsonl")
	var sb strings.Builder
	sb.WriteString(hdr + "\n")
	parent := ""
	for i := range 4000 {
		id := fmt.Sprintf("%08x", i+1)
		body := strings.Repeat("some tool output line\\n", 80+i%50)
		sb.WriteString(line(id, parent, body) + "\n")
		parent = id
	}
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkOpenAndBuildContext(b *testing.B) {
	p := benchSession(b)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	for b.Loop() {
		m, err := Open(p, "")
		if err != nil {
			b.Fatal(err)
		}
		m.BuildSessionContext()
		m.Close()
	}
}

func BenchmarkOpenOnly(b *testing.B) {
	p := benchSession(b)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	for b.Loop() {
		m, err := Load(p)
		if err != nil {
			b.Fatal(err)
		}
		_ = m
	}
}

// Appends cost the same however big the file is: one Write on O_APPEND.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{0, 4000} {
		b.Run(fmt.Sprintf("existing=%d", size), func(b *testing.B) {
			src := benchSession(b)
			p := filepath.Join(b.TempDir(), "a.jsonl")
			data, _ := os.ReadFile(src)
			if size == 0 {
				data = []byte(hdr + "\n" + line("a", "", "x") + "\n")
			}
			os.WriteFile(p, data, 0o644)
			m, err := Open(p, "")
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			msg := user(strings.Repeat("y", 500))
			for b.Loop() {
				if _, err := m.AppendMessage(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeMessage(b *testing.B) {
	raw := []byte(`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"` + strings.Repeat("output line\\n", 300) + `"}],"isError":false,"timestamp":1}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := llm.DecodeMessage(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListAll lists 200 sessions of ~400 KB each: "cold" rescans
// every file (no listing cache), "warm" is the usual case (stat only).
func BenchmarkListAll(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	parent := ""
	for i := range 150 {
		id := fmt.Sprintf("%08x", i+1)
		sb.WriteString(line(id, parent, strings.Repeat("tool output line\\n", 150)) + "\n")
		parent = id
	}
	body := sb.String()
	for i := range 200 {
		dir := filepath.Join(root, fmt.Sprintf("--p%d--", i%10))
		os.MkdirAll(dir, 0o755)
		h := strings.Replace(hdr, `"id":"s1"`, fmt.Sprintf(`"id":"s%d"`, i), 1)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("2025-01-01T00-00-00-000Z_s%d.jsonl", i)), []byte(h+"\n"+body), 0o644)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			os.RemoveAll(indexPath(root))
			if l, _ := ListAll(root); len(l) != 200 {
				b.Fatal(len(l))
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		ListAll(root)
		for b.Loop() {
			if l, _ := ListAll(root); len(l) != 200 {
				b.Fatal(len(l))
			}
		}
	})
}
