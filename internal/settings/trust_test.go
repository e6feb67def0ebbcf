package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/config"
)

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestNeedsTrust(t *testing.T) {
	tests := []struct {
		name   string
		create []string // relative to the root; a trailing / makes a directory
		cwd    string   // relative to the root
		want   bool
	}{
		{"nothing", nil, "proj", false},
		{"bare .relay", []string{"proj/.relay/"}, "proj", false},
		{"unrelated file in .relay", []string{"proj/.relay/notes.txt"}, "proj", false},
		{"settings.json", []string{"proj/.relay/settings.json"}, "proj", true},
		{"mcp.json", []string{"proj/.relay/mcp.json"}, "proj", true},
		{"extensions", []string{"proj/.relay/extensions/"}, "proj", true},
		{"skills", []string{"proj/.relay/skills/"}, "proj", true},
		{"prompts", []string{"proj/.relay/prompts/"}, "proj", true},
		{"themes", []string{"proj/.relay/themes/"}, "proj", true},
		{"SYSTEM.md", []string{"proj/.relay/SYSTEM.md"}, "proj", true},
		{"APPEND_SYSTEM.md", []string{"proj/.relay/APPEND_SYSTEM.md"}, "proj", true},
		{".relay of a parent does not count", []string{"proj/.relay/settings.json"}, "proj/sub", false},
		{".agents/skills in cwd", []string{"proj/.agents/skills/"}, "proj", true},
		{".agents/skills in an ancestor", []string{"proj/.agents/skills/"}, "proj/a/b", true},
		{".agents without skills", []string{"proj/.agents/"}, "proj", false},
		{"~/.agents/skills is the user's own", []string{"home/.agents/skills/"}, "home/proj", false},
		{"~/.agents/skills with cwd = home", []string{"home/.agents/skills/"}, "home", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("HOME", filepath.Join(root, "home"))
			mkdir(t, filepath.Join(root, "home"))
			mkdir(t, filepath.Join(root, tt.cwd))
			for _, c := range tt.create {
				p := filepath.Join(root, c)
				if c[len(c)-1] == '/' {
					mkdir(t, p)
				} else {
					writeFile(t, p, "{}")
				}
			}
			if got := NeedsTrust(filepath.Join(root, tt.cwd)); got != tt.want {
				t.Errorf("NeedsTrust = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTrustStore(t *testing.T) {
	e := newEnv(t)
	store := NewTrustStore(e.agent)
	yes, no := true, false
	a := config.Canonical(e.cwd)
	sub := filepath.Join(a, "sub", "deeper")
	mkdir(t, sub)

	if _, found, err := store.Lookup(e.cwd); found || err != nil {
		t.Fatalf("empty store: found=%v err=%v", found, err)
	}
	if err := store.Set(TrustUpdate{Dir: e.cwd, Decision: &yes}, TrustUpdate{Dir: filepath.Join(a, "sub"), Decision: &no},
		TrustUpdate{Dir: "/zz/other", Decision: &yes}); err != nil {
		t.Fatal(err)
	}
	// Nearest decision wins.
	for _, tt := range []struct {
		cwd     string
		trusted bool
		dir     string
	}{{e.cwd, true, a}, {sub, false, filepath.Join(a, "sub")}, {filepath.Join(a, "x"), true, a}} {
		entry, found, err := store.Lookup(tt.cwd)
		if err != nil || !found || entry.Trusted != tt.trusted || entry.Dir != tt.dir {
			t.Errorf("Lookup(%s) = %+v %v %v", tt.cwd, entry, found, err)
		}
	}
	// null deletes; keys sorted, two-space JSON with a final newline.
	if err := store.Set(TrustUpdate{Dir: filepath.Join(a, "sub")}); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, store.Path)
	wantText := "{\n  \"" + a + "\": true,\n  \"/zz/other\": true\n}\n"
	if a > "/zz/other" {
		wantText = "{\n  \"/zz/other\": true,\n  \"" + a + "\": true\n}\n"
	}
	if got != wantText {
		t.Errorf("trust.json = %q, want %q", got, wantText)
	}
	if _, err := os.Stat(store.Path + ".lock"); !os.IsNotExist(err) {
		t.Error("lock left behind")
	}

	// A file with a null value reads; a bad value is an error, and the file
	// is not replaced.
	writeFile(t, store.Path, `{"`+a+`": null}`)
	if _, found, err := store.Lookup(e.cwd); found || err != nil {
		t.Errorf("null entry: found=%v err=%v", found, err)
	}
	writeFile(t, store.Path, `{"`+a+`": "yes"}`)
	if _, _, err := store.Lookup(e.cwd); err == nil {
		t.Error("want an error for a non-boolean value")
	}
	if err := store.Set(TrustUpdate{Dir: e.cwd, Decision: &yes}); err == nil {
		t.Error("Set over a broken file must fail")
	}
}

func TestDecideTrust(t *testing.T) {
	yes, no := true, false
	hook := func(trusted, decided bool) func() (bool, bool) {
		return func() (bool, bool) { return trusted, decided }
	}
	tests := []struct {
		name        string
		protected   bool
		saved       *bool
		flag        *bool
		hook        func() (bool, bool)
		def         ProjectTrust
		interactive bool
		want        TrustDecision
	}{
		{"no protected resources", false, nil, nil, nil, TrustNever, false, TrustDecision{Trusted: true, Source: TrustNotNeeded}},
		{"--approve", true, &no, &yes, hook(false, true), TrustNever, false, TrustDecision{Trusted: true, Source: TrustFromFlag}},
		{"--no-approve", true, &yes, &no, nil, TrustAlways, true, TrustDecision{Trusted: false, Source: TrustFromFlag}},
		{"extension decides before saved", true, &yes, nil, hook(false, true), TrustAlways, false, TrustDecision{Trusted: false, Source: TrustFromHook}},
		{"undecided extension", true, &no, nil, hook(true, false), TrustAlways, false, TrustDecision{Trusted: false, Source: TrustFromSaved, SavedDir: "<proj>"}},
		{"saved yes", true, &yes, nil, nil, TrustNever, false, TrustDecision{Trusted: true, Source: TrustFromSaved, SavedDir: "<proj>"}},
		{"non-interactive always", true, nil, nil, nil, TrustAlways, false, TrustDecision{Trusted: true, Source: TrustDefault}},
		{"non-interactive ask skips", true, nil, nil, nil, TrustAsk, false, TrustDecision{Source: TrustDefault}},
		{"non-interactive never skips", true, nil, nil, nil, TrustNever, false, TrustDecision{Source: TrustDefault}},
		{"interactive ask prompts", true, nil, nil, nil, TrustAsk, true, TrustDecision{Prompt: true, Source: TrustDefault}},
		{"interactive never", true, nil, nil, nil, TrustNever, true, TrustDecision{Source: TrustDefault}},
		{"interactive always", true, nil, nil, nil, TrustAlways, true, TrustDecision{Trusted: true, Source: TrustDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.protected {
				writeFile(t, filepath.Join(e.cwd, ".relay", "settings.json"), "{}")
			}
			store := NewTrustStore(e.agent)
			if tt.saved != nil {
				if err := store.Set(TrustUpdate{Dir: e.cwd, Decision: tt.saved}); err != nil {
					t.Fatal(err)
				}
			}
			got := DecideTrust(TrustInput{Cwd: e.cwd, Flag: tt.flag, Hook: tt.hook, Store: store, Default: tt.def, Interactive: tt.interactive})
			if got.SavedDir == config.Canonical(e.cwd) {
				got.SavedDir = "<proj>"
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTrustOptions(t *testing.T) {
	e := newEnv(t)
	dir := config.Canonical(e.cwd)
	opts := TrustOptions(e.cwd, true)
	var labels []string
	for _, o := range opts {
		labels = append(labels, o.Label)
	}
	wantLabels := []string{"Trust", "Trust parent folder (" + filepath.Dir(dir) + ")", "Trust (this session only)", "Do not trust", "Do not trust (this session only)"}
	if err := want(labels, wantLabels); err != nil {
		t.Fatal(err)
	}
	// Trusting the parent saves the parent and clears cwd's own entry.
	store := NewTrustStore(e.agent)
	no := false
	if err := store.Set(TrustUpdate{Dir: dir, Decision: &no}); err != nil {
		t.Fatal(err)
	}
	if err := store.Set(opts[1].Updates...); err != nil {
		t.Fatal(err)
	}
	entry, found, _ := store.Lookup(e.cwd)
	if !found || !entry.Trusted || entry.Dir != filepath.Dir(dir) {
		t.Errorf("after trusting the parent: %+v %v", entry, found)
	}
	if len(TrustOptions(e.cwd, false)) != 3 || opts[2].Updates != nil {
		t.Error("session-only options must save nothing and appear only on request")
	}
}
