// Command sessionbench generates large session stores and measures the
// session package on them (bench/session.sh drives it).
//
//	sessionbench gen-one FILE [-mb 50] [-entries 20000] [-compact-kb 800]
//	sessionbench gen-many ROOT [-files 2000] [-mb-total 2048] [-projects 20]
//	sessionbench open FILE        # Open + BuildSessionContext, prints ms
//	sessionbench list ROOT        # ListAll, prints ms
//	sessionbench append FILE N    # N appends, prints µs per append
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: sessionbench gen-one|gen-many|open|list|append PATH [flags]")
		os.Exit(2)
	}
	cmd, path := os.Args[1], os.Args[2]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	mb := fs.Int("mb", 50, "target size of the session in MB")
	entries := fs.Int("entries", 20000, "entries in the session")
	compactKB := fs.Int("compact-kb", 800, "compact when the context since the last compaction exceeds this many KB, as a 200k-token window does (0 = never)")
	files := fs.Int("files", 2000, "session files")
	mbTotal := fs.Int("mb-total", 2048, "total size of the store in MB")
	projects := fs.Int("projects", 20, "project directories")
	n := 1000
	if cmd == "append" && len(os.Args) > 3 {
		fmt.Sscan(os.Args[3], &n)
		fs.Parse(os.Args[4:])
	} else {
		fs.Parse(os.Args[3:])
	}
	var err error
	switch cmd {
	case "gen-one":
		err = genOne(path, *mb<<20, *entries, *compactKB<<10, "bench-one")
	case "gen-many":
		err = genMany(path, *files, int64(*mbTotal)<<20, *projects)
	case "open":
		err = measureOpen(path)
	case "list":
		err = measureList(path)
	case "append":
		err = measureAppend(path, n)
	default:
		err = fmt.Errorf("unknown command %s", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}

// writer produces realistic records: tool-loop turns of a coding session
// (user prompt, assistant with text and a tool call, tool result), with
// compactions at a regular interval as a long session has them.
type writer struct {
	w      *bufio.Writer
	n      int
	parent string
	ids    []string
	ts     time.Time
}

func (w *writer) id() string { w.n++; return fmt.Sprintf("%08x", w.n) }

func (w *writer) rec(typ, body string) {
	id := w.id()
	parent := "null"
	if w.parent != "" {
		parent = `"` + w.parent + `"`
	}
	w.ts = w.ts.Add(time.Second)
	fmt.Fprintf(w.w, `{"type":%q,"id":%q,"parentId":%s,"timestamp":%q,%s}`+"\n", typ, id, parent, w.ts.UTC().Format("2006-01-02T15:04:05.000Z"), body)
	w.parent = id
	w.ids = append(w.ids, id)
}

func text(n, seed int) string {
	const words = "the quick brown fox jumps over a lazy dog while relay reads files and edits code carefully "
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[(seed*7)%len(words):])
		b.WriteString(words)
	}
	s := b.String()[:n]
	return strings.ReplaceAll(s, "\"", "'")
}

func (w *writer) msg(role string, size, i int) {
	ms := w.ts.UnixMilli()
	var body string
	switch role {
	case "user":
		body = fmt.Sprintf(`"message":{"role":"user","content":%q,"timestamp":%d}`, text(size, i), ms)
	case "assistant":
		body = fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"toolCall","id":"call_%d","name":"bash","arguments":{"command":"grep -rn foo ."}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":300,"cacheRead":50000,"cacheWrite":0,"totalTokens":51500,"cost":{"input":0.0036,"output":0.0045,"cacheRead":0.015,"cacheWrite":0,"total":0.0231}},"stopReason":"toolUse","timestamp":%d}`, text(size, i), i, ms)
	default:
		body = fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":"call_%d","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}`, i, text(size, i)+"\n\u2028end", ms)
	}
	w.rec("message", body)
}

func genOne(path string, size, entries, compactBytes int, id string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := &writer{w: bufio.NewWriterSize(f, 1<<20), ts: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
	fmt.Fprintf(w.w, `{"type":"session","version":3,"id":%q,"timestamp":"2025-03-01T09:00:00.000Z","cwd":"/work/big"}`+"\n", id)
	sys := `"message":{"role":"system","content":"","sections":{"preamble":` + fmt.Sprintf("%q", text(8000, 1)) + `},"toolsAdded":[{"name":"bash","description":"run","parameters":{"type":"object"}}],"timestamp":1}`
	w.rec("message", sys)
	// Size budget per message so the file lands near the target.
	per := size/entries - 330
	if per < 40 {
		per = 40
	}
	since := 0
	for i := 1; len(w.ids) < entries; i++ {
		if compactBytes > 0 && since > compactBytes {
			since = 0
			keep := w.ids[len(w.ids)-40]
			w.rec("compaction", fmt.Sprintf(`"summary":%q,"firstKeptEntryId":%q,"tokensBefore":180000,"systemMessage":{"role":"system","content":%q,"timestamp":1}`, text(3000, i), keep, text(8000, 2)))
			continue
		}
		switch i % 3 {
		case 0:
			w.msg("user", per/3, i)
			since += per / 3
		case 1:
			w.msg("assistant", per, i)
			since += per
		default:
			big := per * 5 / 3
			if i%97 == 0 {
				big = 60 << 10 // an occasional huge tool output
			}
			w.msg("toolResult", big, i)
			since += big
		}
	}
	return w.w.Flush()
}

func genMany(root string, files int, total int64, projects int) error {
	// One template body, reused with a fresh header per file.
	tmpl := filepath.Join(root, ".template.jsonl")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	per := int(total / int64(files))
	if err := genOne(tmpl, per, max(per/2500, 10), 0, "template"); err != nil {
		return err
	}
	data, err := os.ReadFile(tmpl)
	os.Remove(tmpl)
	if err != nil {
		return err
	}
	body := data[strings.IndexByte(string(data), '\n')+1:]
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range files {
		cwd := fmt.Sprintf("/work/project-%02d", i%projects)
		dir := session.DefaultDir(filepath.Dir(root), cwd)
		if filepath.Base(root) != "sessions" {
			dir = filepath.Join(root, filepath.Base(dir))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		ts := base.Add(time.Duration(i) * time.Minute)
		id := fmt.Sprintf("0190%04x-0000-7000-8000-%012x", i, i)
		header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`+"\n", id, ts.Format("2006-01-02T15:04:05.000Z"), cwd)
		f, err := os.Create(filepath.Join(dir, session.FileName(ts, id)))
		if err != nil {
			return err
		}
		if _, err := f.WriteString(header); err == nil {
			_, err = f.Write(body)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func measureOpen(path string) error {
	start := time.Now()
	m, err := session.Open(path, "")
	if err != nil {
		return err
	}
	opened := time.Since(start)
	ctx := m.BuildSessionContext()
	total := time.Since(start)
	fmt.Printf("open %d entries: %.1f ms; +context (%d messages): %.1f ms total\n", m.EntryCount(), ms(opened), len(ctx.Messages), ms(total))
	return m.Close()
}

func measureList(root string) error {
	start := time.Now()
	infos, err := session.ListAll(root)
	if err != nil {
		return err
	}
	msgs := 0
	for _, in := range infos {
		msgs += in.MessageCount
	}
	fmt.Printf("list %d sessions (%d messages): %.1f ms\n", len(infos), msgs, ms(time.Since(start)))
	return nil
}

func measureAppend(path string, n int) error {
	m, err := session.Open(path, "")
	if err != nil {
		return err
	}
	defer m.Close()
	msg := &llm.UserMessage{Content: llm.StringContent(text(500, 3)), Timestamp: 1}
	start := time.Now()
	for range n {
		if _, err := m.AppendMessage(msg); err != nil {
			return err
		}
	}
	fmt.Printf("append x%d on a %d-entry session: %.1f µs each\n", n, m.EntryCount()-n, float64(time.Since(start).Microseconds())/float64(n))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
