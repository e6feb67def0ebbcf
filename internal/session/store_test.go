package session

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

const hdr = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}`

func line(id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1}}`
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPathsAndIDs(t *testing.T) {
	if got := DefaultDir("/home/u/.relay/agent", "/work/my:proj"); got != "/home/u/.relay/agent/sessions/--work-my-proj--" {
		t.Errorf("DefaultDir = %s", got)
	}
	if got := ResolveDir("flag", "/env", "/set", "/a", "/cwd"); got != "/cwd/flag" {
		t.Errorf("flag wins, relative to cwd: %s", got)
	}
	if got := ResolveDir("", "/env", "/set", "/a", "/cwd"); got != "/env" {
		t.Errorf("env over setting: %s", got)
	}
	if got := ResolveDir("", "", "rel", "/a", "/cwd"); got != "/cwd/rel" {
		t.Errorf("setting: %s", got)
	}
	if got := ResolveDir("", "", "", "/a", "/cwd"); got != "/a/sessions/--cwd--" {
		t.Errorf("default: %s", got)
	}
	for _, id := range []string{"a", "my-session.1", "A_b-c"} {
		if ValidateSessionID(id) != nil {
			t.Errorf("%q rejected", id)
		}
	}
	for _, id := range []string{"", "-a", "a-", "a/b", "a b", ".x"} {
		if ValidateSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
	if _, err := Create("/p", t.TempDir(), CreateOptions{ID: "../evil"}); err == nil {
		t.Error("bad id accepted by Create")
	}
	if id := NewSessionID(); len(id) != 36 || id[14] != '7' {
		t.Errorf("not a UUIDv7: %s", id)
	}
	m := InMemory("/p")
	for range 50 {
		id, _ := m.AppendCustom("x", nil)
		if len(id) != 8 {
			t.Fatalf("entry id %q", id)
		}
	}
}

func TestLazyFileCreation(t *testing.T) {
	dir := t.TempDir()
	m, err := Create("/p", dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.AppendModelChange("openai", "gpt")
	m.AppendMessage(system("prompt"))
	if _, err := os.Stat(m.SessionFile()); !os.IsNotExist(err) {
		t.Fatalf("file exists before the first user/assistant message: %v", err)
	}
	m.AppendMessage(user("hi"))
	data, err := os.ReadFile(m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"type":"session","version":3,`) {
		t.Fatalf("file:\n%s", data)
	}
	m.AppendMessage(asst("yo"))
	data2, _ := os.ReadFile(m.SessionFile())
	if !bytes.HasPrefix(data2, data) || bytes.Count(data2, []byte("\n")) != 5 {
		t.Errorf("append did not add exactly one line:\n%s", data2)
	}
	if st, _ := os.Stat(m.SessionFile()); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}

func TestInMemoryWritesNothing(t *testing.T) {
	m := InMemory("/p")
	m.AppendMessage(user("hi"))
	if m.SessionFile() != "" || m.IsPersisted() {
		t.Error("in-memory session has a file")
	}
}

// Bad input: every case gets a clear message naming the file (and line),
// and nothing is modified.
func TestBadInput(t *testing.T) {
	big := strings.Repeat("x", 300*1024)
	cases := []struct {
		name, content string
		wantErr       string   // Open error substring ("" = opens)
		problems      []string // "line:severity:substring"
		ctx           string   // expected context texts after open
	}{
		{name: "non-JSON", content: "hello world\n", wantErr: "line 1: no readable session header"},
		{name: "header-less", content: line("a", "", "x") + "\n", wantErr: `line 1: first record is a "message" record, not a session header`},
		{name: "newer version", content: strings.Replace(hdr, `"version":3`, `"version":9`, 1) + "\n", wantErr: "version 9"},
		{name: "corrupt middle line", content: hdr + "\n" + line("a", "", "one") + "\n{\"type\":\"mess\n" + line("b", "a", "two") + "\n",
			problems: []string{"3:error:corrupt record"}, ctx: "one two"},
		{name: "torn final line", content: hdr + "\n" + line("a", "", "one") + "\n" + `{"type":"message","id":"b","par`,
			problems: []string{"3:warning:torn write"}, ctx: "one"},
		{name: "NUL-padded tail", content: hdr + "\n" + line("a", "", "one") + "\n" + strings.Repeat("\x00", 4096),
			problems: []string{"3:warning:NUL"}, ctx: "one"},
		{name: "unknown parent", content: hdr + "\n" + line("a", "", "one") + "\n" + line("b", "zzz", "two") + "\n",
			problems: []string{`3:error:unknown parent "zzz"`}, ctx: "two"},
		{name: "duplicate ids", content: hdr + "\n" + line("a", "", "one") + "\n" + line("a", "", "again") + "\n",
			problems: []string{`3:error:duplicate entry id "a" (first at line 2)`}, ctx: "again"},
		{name: "300 KB line", content: hdr + "\n" + line("a", "", big) + "\n" + line("b", "a", "after") + "\n", ctx: big + " after"},
		{name: "U+2028 in strings", content: hdr + "\n" + line("a", "", "a\u2028b\u2029c") + "\n", ctx: "a\u2028b\u2029c"},
		{name: "CRLF lines", content: hdr + "\r\n" + line("a", "", "one") + "\r\n", ctx: "one"},
		{name: "no final LF but whole", content: hdr + "\n" + line("a", "", "one"), ctx: "one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.content)
			m, err := Open(p, "")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), p) {
					t.Fatalf("err = %v, want %q naming the file", err, tc.wantErr)
				}
				if b, _ := os.ReadFile(p); string(b) != tc.content {
					t.Error("file modified")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ps := m.Problems()
			if len(ps) != len(tc.problems) {
				t.Fatalf("problems = %v, want %v", ps, tc.problems)
			}
			for i, want := range tc.problems {
				parts := strings.SplitN(want, ":", 3)
				got := ps[i]
				if got.Path != p || parts[0] != itoa(got.Line) || parts[1] != got.Severity.String() || !strings.Contains(got.Msg, parts[2]) {
					t.Errorf("problem %v, want %s", got, want)
				}
			}
			var texts []string
			for _, msg := range m.BuildSessionContext().Messages {
				texts = append(texts, msg.(*llm.UserMessage).Content.Text)
			}
			if got := strings.Join(texts, " "); got != tc.ctx {
				if len(got) > 200 {
					got = got[:200]
				}
				t.Errorf("context = %q", got)
			}
			// Nothing read is lost: the next append only adds bytes, on a
			// fresh line.
			before, _ := os.ReadFile(p)
			if _, err := m.AppendMessage(user("new")); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(p)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("existing bytes changed")
			}
			m.Close()
			m2, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			es := m2.Entries()
			if last := es[len(es)-1]; last.Role() != "user" || !bytes.Contains(last.Raw(), []byte(`"new"`)) {
				t.Errorf("appended record not read back cleanly: %s", last.Raw())
			}
		})
	}
}

func itoa(n int) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestOpenMissingEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	// Missing: a new session at that path (as the original).
	p := filepath.Join(dir, "new.jsonl")
	m, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	m.AppendMessage(user("hi"))
	m.Close()
	if r, err := Check(p); err != nil || !r.Sound() || r.Entries != 1 {
		t.Fatalf("check: %v %+v", err, r)
	}
	// Empty: initialized in place.
	e := writeFile(t, "")
	m, err = Open(e, "")
	if err != nil {
		t.Fatal(err)
	}
	m.AppendMessage(user("hi"))
	m.Close()
	if data, _ := os.ReadFile(e); !bytes.HasPrefix(data, []byte(`{"type":"session"`)) {
		t.Errorf("empty file not initialized: %s", data)
	}
	// Directory and missing files for viewers: clear errors.
	if _, err := Open(dir, ""); err == nil || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), dir) {
		t.Errorf("dir: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "nope.jsonl")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing: %v", err)
	}
	if _, err := Load(writeFile(t, "")); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty: %v", err)
	}
}

func TestCheck(t *testing.T) {
	p := writeFile(t, hdr+"\n"+line("a", "", "one")+"\n"+`{"type":"message","id":"b","parentId":"a","timestamp":"x","message":{"role":"user","content":"bad \q escape","timestamp":1}}`+"\n")
	r, err := Check(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sound() || len(r.Problems) != 1 || r.Problems[0].Line != 3 {
		t.Errorf("problems %v", r.Problems)
	}
}

func TestTreeNavigation(t *testing.T) {
	b := newBuilder(t)
	u1 := b.msg(user("q1"))
	a1 := b.msg(asst("a1"))
	u2 := b.msg(user("q2"))
	b.ok("", b.m.SetLeaf(a1))
	u3 := b.msg(user("q2'"))
	b.ok(b.m.AppendLabel(u1, "start"))
	if kids := b.m.Children(a1); len(kids) != 2 || kids[0].ID != u2 || kids[1].ID != u3 {
		t.Errorf("children %v", kids)
	}
	br := b.m.Branch(u2)
	if len(br) != 3 || br[0].ID != u1 || br[2].ID != u2 {
		t.Errorf("branch %v", br)
	}
	tree := b.m.Tree()
	if len(tree) != 1 || tree[0].Label != "start" || len(tree[0].Children[0].Children) != 2 {
		t.Errorf("tree %+v", tree[0])
	}
	since := b.m.EntriesSince(u2)
	if len(since) != 2 || since[0].ID != u3 {
		t.Errorf("since %v", since)
	}
	b.m.ResetLeaf()
	r := b.msg(user("new root"))
	if b.m.Entry(r).ParentID != "" || len(b.m.Tree()) != 2 {
		t.Error("ResetLeaf did not start a new root")
	}
	if err := b.m.SetLeaf("missing"); err == nil {
		t.Error("SetLeaf to a missing entry")
	}
	b.ok(b.m.AppendSessionInfo("  two\nlines "))
	if b.m.Name() != "two lines" {
		t.Errorf("name %q", b.m.Name())
	}
}

func TestCreateBranchedSessionAndFork(t *testing.T) {
	dir := t.TempDir()
	m, _ := Create("/p", dir, CreateOptions{})
	u1, _ := m.AppendMessage(user("q1"))
	a1, _ := m.AppendMessage(asst("a1"))
	m.AppendMessage(user("other branch"))
	m.AppendLabel(u1, "here")
	orig := m.SessionFile()
	newPath, err := m.CreateBranchedSession(a1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if newPath == orig || m.SessionFile() != newPath || m.Header().ParentSession != orig {
		t.Errorf("paths %s %s %s", newPath, orig, m.Header().ParentSession)
	}
	if got := describe2(m.BuildSessionContext().Messages); got != "user:q1 | assistant:a1" {
		t.Errorf("branched context %s", got)
	}
	if m.Label(u1) != "here" {
		t.Error("label not carried")
	}
	// The original file's lock was released.
	o, err := Open(orig, "")
	if err != nil {
		t.Fatalf("original still locked: %v", err)
	}
	o.Close()
	m.Close()
	f, err := ForkFrom(newPath, "/elsewhere", dir, "forked-1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Header().ParentSession != newPath || f.Cwd() != "/elsewhere" || f.SessionID() != "forked-1" {
		t.Errorf("fork header %s", f.Header().Raw())
	}
	if r, err := Check(f.SessionFile()); err != nil || !r.Sound() || r.Entries != 3 {
		t.Errorf("fork file: %v %+v", err, r)
	}
}

func TestListAndFind(t *testing.T) {
	root := t.TempDir()
	dirA := DefaultDir(root, "/proj/a")
	dirB := DefaultDir(root, "/proj/b")
	mk := func(dir, cwd, id, first string, n int, name string) {
		m, err := Create(cwd, dir, CreateOptions{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		m.AppendMessage(system("sys"))
		m.AppendMessage(user(first))
		for range n {
			m.AppendMessage(asst("ok"))
		}
		if name != "" {
			m.AppendSessionInfo(name)
		}
		m.Close()
	}
	mk(dirA, "/proj/a", "aaaa-1", "first a1", 2, "")
	mk(dirA, "/proj/a", "aaaa-2", "first a2", 0, "Named")
	mk(dirB, "/proj/b", "bbbb-1", "first b1", 1, "")
	os.WriteFile(filepath.Join(dirA, "junk.jsonl"), []byte("not json\n"), 0o644)
	list, err := List("/proj/a", dirA)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("list %+v", list)
	}
	byID := map[string]SessionInfo{}
	for _, s := range list {
		byID[s.ID] = s
	}
	if s := byID["aaaa-1"]; s.MessageCount != 3 || s.FirstMessage != "first a1" || s.Cwd != "/proj/a" || s.Modified.IsZero() {
		t.Errorf("info %+v", s)
	}
	if s := byID["aaaa-2"]; s.Name != "Named" {
		t.Errorf("name %+v", s)
	}
	all, _ := ListAll(filepath.Join(root, "sessions"))
	if len(all) != 3 {
		t.Errorf("all %d", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Modified.After(all[i-1].Modified) {
			t.Error("not newest first")
		}
	}
	// A custom dir holding several projects filters by header cwd.
	p, err := FindByID("bbbb", filepath.Join(root, "sessions"))
	if err != nil || !strings.HasSuffix(p, "_bbbb-1.jsonl") {
		t.Errorf("find prefix: %s %v", p, err)
	}
	if _, err := FindByID("aaaa", dirA); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := FindByID("zzz", dirA); err == nil {
		t.Error("missing id found")
	}
	rec, err := ContinueRecent("/proj/b", dirB)
	if err != nil {
		t.Fatal(err)
	}
	if rec.SessionID() != "bbbb-1" {
		t.Errorf("continue recent %s", rec.SessionID())
	}
	rec.Close()
	if err := Delete(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("not deleted")
	}
}

// Two relay processes never write one file: the second gets a clear error.
func TestLockAcrossProcesses(t *testing.T) {
	if os.Getenv("RELAY_SESSION_LOCK_CHILD") != "" {
		_, err := Open(os.Getenv("RELAY_SESSION_LOCK_CHILD"), "")
		var le *LockedError
		if errors.As(err, &le) {
			os.Stdout.WriteString("LOCKED: " + err.Error())
			os.Exit(3)
		}
		os.Stdout.WriteString("OPENED")
		os.Exit(0)
	}
	p := writeFile(t, hdr+"\n"+line("a", "", "one")+"\n")
	m, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	child := func() (string, int) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockAcrossProcesses$")
		cmd.Env = append(os.Environ(), "RELAY_SESSION_LOCK_CHILD="+p)
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := child()
	if code != 3 || !strings.Contains(out, p) || !strings.Contains(out, "another relay process") {
		t.Fatalf("child while locked: code %d out %q", code, out)
	}
	m.Close()
	if out, code := child(); code != 0 || !strings.Contains(out, "OPENED") {
		t.Fatalf("child after close: code %d out %q", code, out)
	}
}

// Large files are scanned in parallel parts; line numbers stay exact.
func TestParallelScanLineNumbers(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(hdr + "\n")
	pad := strings.Repeat("z", 1000)
	parent := ""
	bad := map[int]bool{700: true, 1501: true, 2999: true}
	n := 3500
	for i := 2; i <= n; i++ {
		if bad[i] {
			sb.WriteString(`{"type":"message","id":"broken` + "\n")
			continue
		}
		id := itoa(i)
		sb.WriteString(line(id, parent, pad) + "\n")
		parent = id
	}
	m, err := Load(writeFile(t, sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range m.Problems() {
		if strings.Contains(p.Msg, "corrupt") {
			got = append(got, p.Line)
		}
	}
	if len(got) != 3 || got[0] != 700 || got[1] != 1501 || got[2] != 2999 {
		t.Errorf("corrupt lines reported at %v", got)
	}
	for _, e := range m.Entries() {
		if e.ID != itoa(e.Line) {
			t.Fatalf("entry %s has line %d", e.ID, e.Line)
		}
	}
}

// The listing cache follows appends incrementally, notices replaced files,
// and survives a corrupt cache file.
func TestListCache(t *testing.T) {
	dir := t.TempDir()
	m, _ := Create("/p", dir, CreateOptions{ID: "cache-1"})
	m.AppendMessage(user("first"))
	count := func() SessionInfo {
		t.Helper()
		l, err := List("/p", dir)
		if err != nil || len(l) != 1 {
			t.Fatalf("list: %v %v", l, err)
		}
		return l[0]
	}
	if c := count(); c.MessageCount != 1 || c.FirstMessage != "first" {
		t.Fatalf("%+v", c)
	}
	if _, err := os.Stat(indexPath(dir)); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	m.AppendMessage(asst("a"))
	m.AppendSessionInfo("named later")
	if c := count(); c.MessageCount != 2 || c.Name != "named later" || c.FirstMessage != "first" {
		t.Fatalf("after append: %+v", c)
	}
	path := m.SessionFile()
	m.Close()
	// Replace the file with a different session of another size.
	other := strings.Replace(hdr, `"id":"s1"`, `"id":"cache-1"`, 1)
	other = strings.Replace(other, `"cwd":"/p"`, `"cwd":"`+absPath("/p")+`"`, 1)
	os.WriteFile(path, []byte(other+"\n"+line("a", "", "replaced")+"\n"), 0o600)
	if c := count(); c.MessageCount != 1 || c.FirstMessage != "replaced" {
		t.Fatalf("after replace: %+v", c)
	}
	os.WriteFile(indexPath(dir), []byte("{garbage"), 0o600)
	if c := count(); c.MessageCount != 1 {
		t.Fatalf("after corrupt cache: %+v", c)
	}
}

// Crash and corruption fixtures: what `relay sessions check` reports for
// each (golden), and an append after opening never changes earlier bytes.
func TestCorruptionFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corrupt", "*.jsonl"))
	if len(files) < 8 {
		t.Fatalf("fixtures missing: %v", files)
	}
	var out bytes.Buffer
	for _, f := range files {
		out.WriteString("== " + filepath.Base(f) + "\n")
		r, err := Check(f)
		if err != nil {
			out.WriteString("error: " + err.Error() + "\n")
		} else {
			for _, p := range r.Problems {
				out.WriteString(p.String() + "\n")
			}
			out.WriteString("sound: " + map[bool]string{true: "yes", false: "no"}[r.Sound()] + "\n")
		}
		// Open a copy, append, and compare.
		orig, _ := os.ReadFile(f)
		cp := filepath.Join(t.TempDir(), filepath.Base(f))
		os.WriteFile(cp, orig, 0o644)
		m, err := Open(cp, "")
		if err != nil {
			if after, _ := os.ReadFile(cp); !bytes.Equal(after, orig) {
				t.Errorf("%s: failed open modified the file", f)
			}
			continue
		}
		if _, err := m.AppendMessage(user("after crash")); err != nil {
			t.Errorf("%s: append: %v", f, err)
		}
		m.Close()
		after, _ := os.ReadFile(cp)
		if !bytes.HasPrefix(after, orig) {
			t.Errorf("%s: earlier bytes changed", f)
		}
		if !bytes.HasSuffix(after, []byte("\n")) || !bytes.Contains(after, []byte("\n{\"type\":\"message\"")) {
			t.Errorf("%s: appended record not on its own line", f)
		}
	}
	golden(t, "corrupt/check.golden", out.Bytes())
}

func TestAppendAfterClose(t *testing.T) {
	m, _ := Create("/p", t.TempDir(), CreateOptions{})
	m.AppendMessage(user("hi"))
	m.Close()
	if _, err := m.AppendMessage(user("again")); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("append after close: %v", err)
	}
	l, _ := Load(m.SessionFile())
	if _, err := l.AppendMessage(user("x")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("append to loaded session: %v", err)
	}
}
