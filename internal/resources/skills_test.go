package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSkillDiscovery(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under <agentDir>/skills
		want  []string
	}{
		{"skill dir stops recursion", map[string]string{
			"a/SKILL.md":     skillMD("a", "A skill."),
			"a/sub/SKILL.md": skillMD("inner", "Never seen."),
			"a/notes.md":     skillMD("notes", "Not a skill either."),
		}, []string{"a"}},
		{"root md needs a description", map[string]string{
			"lone.md":  skillMD("lone", "Standalone."),
			"plain.md": "# just notes\n",
		}, []string{"lone"}},
		{"nested md without SKILL.md is not a skill", map[string]string{
			"group/notes.md":   skillMD("notes", "Nested."),
			"group/b/SKILL.md": skillMD("b", "B."),
		}, []string{"b"}},
		{"dot dirs and node_modules skipped", map[string]string{
			".hidden/SKILL.md":        skillMD("hidden", "H."),
			"node_modules/x/SKILL.md": skillMD("x", "X."),
			"ok/SKILL.md":             skillMD("ok", "OK."),
		}, []string{"ok"}},
		{"ignore files", map[string]string{
			".gitignore":           "ignored/\n/top.md\n",
			"ignored/SKILL.md":     skillMD("ignored", "I."),
			"top.md":               skillMD("top", "T."),
			"group/.ignore":        "c\n!keep\n",
			"group/c/SKILL.md":     skillMD("c", "C."),
			"group/d/SKILL.md":     skillMD("d", "D."),
			"other/.fdignore":      "*\n",
			"other/e/SKILL.md":     skillMD("e", "E."),
			"group/keep/x.md":      "",
			"f/.gitignore":         "/SKILL.md\n",
			"f/SKILL.md":           skillMD("f", "F."),
			"f/inner/SKILL.md":     skillMD("f-inner", "Found below an ignored SKILL.md."),
			"c-elsewhere/SKILL.md": skillMD("c-elsewhere", "A nested .ignore only covers its own subtree."),
		}, []string{"c-elsewhere", "f-inner", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			writeTree(t, filepath.Join(e.agent, "skills"), tt.files)
			set := Load(e.opts())
			if diff := cmp.Diff(tt.want, skillNames(set)); diff != "" {
				t.Errorf("skills (-want +got):\n%s\n%v", diff, set.Diagnostics)
			}
		})
	}
}

func TestAgentsSkillDirs(t *testing.T) {
	e := newEnv(t)
	repo := filepath.Dir(e.cwd)
	writeTree(t, e.root, map[string]string{
		"repo/sub/.agents/skills/root.md":      skillMD("root", "Root-level md is not a skill here."),
		"repo/sub/.agents/skills/group/g.md":   skillMD("g", "Below the root it is."),
		"repo/sub/.agents/skills/s/SKILL.md":   skillMD("s", "Cwd skill."),
		"repo/.agents/skills/up/SKILL.md":      skillMD("up", "Repo root skill."),
		".agents/skills/beyond/SKILL.md":       skillMD("beyond", "Above the git root: not searched."),
		"home/.agents/skills/mine/SKILL.md":    skillMD("mine", "User agents skill."),
		"repo/sub/.relay/skills/proj/SKILL.md": skillMD("proj", "Project skill."),
		"agent/skills/user/SKILL.md":           skillMD("user", "User skill."),
	})
	_ = repo
	set := Load(e.opts())
	want := []string{"proj", "g", "s", "up", "user", "mine"}
	if diff := cmp.Diff(want, skillNames(set)); diff != "" {
		t.Errorf("trusted (-want +got):\n%s", diff)
	}
	o := e.opts()
	o.ProjectTrusted = false
	if diff := cmp.Diff([]string{"user", "mine"}, skillNames(Load(o))); diff != "" {
		t.Errorf("untrusted (-want +got):\n%s", diff)
	}
	// ~/.agents/skills is the user's even when cwd is below home.
	o = e.opts()
	o.HomeDir = filepath.Join(e.root, "repo", "sub")
	set = Load(o)
	for _, sk := range set.Skills {
		if sk.Name == "s" && sk.Source.Scope != ScopeUser {
			t.Errorf("home .agents skill scope %q", sk.Source.Scope)
		}
	}
}

func TestSkillFrontmatter(t *testing.T) {
	long := strings.Repeat("x", 1025)
	tests := []struct {
		name     string
		path     string // under skills/
		content  string
		wantName string // "" = not loaded
		wantDesc string
		disabled bool
		diags    []string
	}{
		{"name falls back to dir", "pdf-tools/SKILL.md", "---\ndescription: Extract PDFs.\n---\nBody\n", "pdf-tools", "Extract PDFs.", false, nil},
		{"declared name wins", "dir/SKILL.md", skillMD("other-name", "D."), "other-name", "D.", false, nil},
		{"invalid name warns but loads", "x/SKILL.md", skillMD("Bad_Name-", "D."), "Bad_Name-", "D.", false, []string{
			"name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)", "name must not start or end with a hyphen"}},
		{"consecutive hyphens", "x/SKILL.md", skillMD("a--b", "D."), "a--b", "D.", false, []string{"name must not contain consecutive hyphens"}},
		{"long name", "x/SKILL.md", skillMD(strings.Repeat("a", 65), "D."), strings.Repeat("a", 65), "D.", false, []string{"name exceeds 64 characters (65)"}},
		{"missing description skips", "x/SKILL.md", "---\nname: x\n---\nBody\n", "", "", false, []string{"description is required"}},
		{"no frontmatter skips", "x/SKILL.md", "# Just a body\n", "", "", false, []string{"description is required"}},
		{"long description warns", "x/SKILL.md", "---\ndescription: " + long + "\n---\n", "x", long, false, []string{"description exceeds 1024 characters (1025)"}},
		{"malformed yaml skips", "x/SKILL.md", "---\ndescription: [unclosed\n---\n", "", "", false, []string{"invalid frontmatter"}},
		{"disable-model-invocation", "x/SKILL.md", "---\ndescription: Manual only.\ndisable-model-invocation: true\n---\n", "x", "Manual only.", true, nil},
		{"block scalar and extra fields", "x/SKILL.md", "---\nname: x\ndescription: >\n  Folded\n  text.\nlicense: MIT\nmetadata:\n  author: me\nallowed-tools: [read, bash]\n---\n", "x", "Folded text.\n", false, nil},
		{"CRLF and BOM", "x/SKILL.md", "\ufeff---\r\ndescription: Windows.\r\n---\r\nBody\r\n", "x", "Windows.", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			writeTree(t, filepath.Join(e.agent, "skills"), map[string]string{tt.path: tt.content})
			set := Load(e.opts())
			var msgs []string
			for _, d := range set.Diagnostics {
				m := d.Message
				if strings.HasPrefix(m, "invalid frontmatter") {
					m = "invalid frontmatter"
				}
				msgs = append(msgs, m)
			}
			if diff := cmp.Diff(tt.diags, msgs); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if tt.wantName == "" {
				if len(set.Skills) != 0 {
					t.Fatalf("loaded %+v", set.Skills)
				}
				return
			}
			if len(set.Skills) != 1 {
				t.Fatalf("skills %+v", set.Skills)
			}
			sk := set.Skills[0]
			path := filepath.Join(e.agent, "skills", filepath.FromSlash(tt.path))
			want := Skill{Name: tt.wantName, Description: tt.wantDesc, FilePath: path, BaseDir: filepath.Dir(path), DisableModelInvocation: tt.disabled,
				Source: SourceInfo{Path: path, Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel, BaseDir: e.agent}}
			if diff := cmp.Diff(want, sk); diff != "" {
				t.Errorf("skill (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSkillPrecedenceAndDuplicates(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.root, map[string]string{
		"repo/sub/.relay/skills/dup/SKILL.md": skillMD("dup", "Project auto."),
		"repo/sub/.relay/extra/dup/SKILL.md":  skillMD("dup", "Project settings entry."),
		"agent/skills/dup/SKILL.md":           skillMD("dup", "User auto."),
		"agent/mine/dup/SKILL.md":             skillMD("dup", "User settings entry."),
		"agent/mine/solo/SKILL.md":            skillMD("solo", "User settings only."),
		"cli/dup/SKILL.md":                    skillMD("dup", "CLI."),
		"cli/clionly/SKILL.md":                skillMD("clionly", "CLI only."),
	})
	o := e.opts()
	o.Skills = []Entry{
		{Entry: "mine", Scope: ScopeUser, BaseDir: e.agent},
		{Entry: "extra", Scope: ScopeProject, BaseDir: filepath.Join(e.cwd, ".relay")},
	}
	o.SkillPaths = []string{"../../cli", "missing"}
	set := Load(o)
	if diff := cmp.Diff([]string{"dup", "solo", "clionly"}, skillNames(set)); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	if set.Skills[0].Description != "Project settings entry." || set.Skills[0].Source.Source != SourceLocal || set.Skills[0].Source.Scope != ScopeProject {
		t.Errorf("winner %+v", set.Skills[0])
	}
	if s := set.Skills[2].Source; s.Source != SourceCLI || s.Scope != ScopeTemporary {
		t.Errorf("cli source %+v", s)
	}
	var collisions, errs int
	for _, d := range set.Diagnostics {
		switch d.Kind {
		case DiagCollision:
			collisions++
			if d.Winner != filepath.Join(e.cwd, ".relay", "extra", "dup", "SKILL.md") {
				t.Errorf("collision winner %s", d.Winner)
			}
		case DiagError:
			errs++
			if d.Message != "skill path does not exist" || d.Path != filepath.Join(e.cwd, "missing") {
				t.Errorf("diag %+v", d)
			}
		}
	}
	if collisions != 4 || errs != 1 {
		t.Errorf("diagnostics %v", set.Diagnostics)
	}

	// --no-skills keeps only --skill paths.
	o.NoSkills = true
	if diff := cmp.Diff([]string{"clionly", "dup"}, skillNames(Load(o))); diff != "" {
		t.Errorf("no-skills (-want +got):\n%s", diff)
	}
}

func TestSkillSettingsRules(t *testing.T) {
	files := map[string]string{
		"skills/a/SKILL.md": skillMD("a", "A."),
		"skills/b/SKILL.md": skillMD("b", "B."),
		"pack/x/SKILL.md":   skillMD("x", "X."),
		"pack/y/SKILL.md":   skillMD("y", "Y."),
		"pack/nested/z.md":  skillMD("z", "Root-level only for relay dirs."),
		"pack/top.md":       skillMD("top", "Top."),
		"single/SKILL.md":   skillMD("single", "Named by file."),
	}
	tests := []struct {
		name    string
		entries []string
		want    []string
	}{
		{"plain dir", []string{"pack"}, []string{"top", "x", "y", "a", "b"}},
		{"single file", []string{"single/SKILL.md"}, []string{"single", "a", "b"}},
		{"glob exclusion by dir name", []string{"pack", "!y"}, []string{"top", "x", "a", "b"}},
		{"glob exclusion by relative path", []string{"pack", "!pack/*"}, []string{"a", "b"}},
		{"glob exclusion of everything, force include", []string{"pack", "!**", "+pack/x"}, []string{"x"}},
		{"force exclude wins over force include", []string{"pack", "+pack/x", "-pack/x"}, []string{"top", "y", "a", "b"}},
		{"exact exclusion of an auto skill", []string{"-skills/a"}, []string{"b"}},
		{"exact exclusion by file path", []string{"-skills/b/SKILL.md"}, []string{"a"}},
		{"exclusion of an auto skill by glob", []string{"!a"}, []string{"b"}},
		{"absolute force exclude", []string{"-@AGENT@/skills/a"}, []string{"b"}},
		{"glob include narrows plain entries", []string{"pack", "*/x"}, []string{"x", "a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			writeTree(t, e.agent, files)
			o := e.opts()
			for _, en := range tt.entries {
				o.Skills = append(o.Skills, Entry{Entry: strings.ReplaceAll(en, "@AGENT@", e.agent), Scope: ScopeUser, BaseDir: e.agent})
			}
			if diff := cmp.Diff(tt.want, skillNames(Load(o))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSymlinkedSkillLoadsOnce(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.agent, map[string]string{"skills/a/SKILL.md": skillMD("a", "A.")})
	o := e.opts()
	o.SkillPaths = []string{filepath.Join(e.agent, "skills", "a", "SKILL.md")}
	set := Load(o)
	if len(set.Skills) != 1 || len(set.Diagnostics) != 0 {
		t.Fatalf("%+v %v", set.Skills, set.Diagnostics)
	}
}

func TestSymlinkLoopTerminates(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.agent, map[string]string{"skills/group/a/SKILL.md": skillMD("a", "A."), "more/p.md": "Prompt."})
	if err := os.Symlink(filepath.Join(e.agent, "skills"), filepath.Join(e.agent, "skills", "group", "loop")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink(filepath.Join(e.agent, "more"), filepath.Join(e.agent, "more", "again")); err != nil {
		t.Fatal(err)
	}
	o := e.opts()
	o.Prompts = []Entry{{Entry: "more", Scope: ScopeUser, BaseDir: e.agent}}
	set := Load(o)
	if diff := cmp.Diff([]string{"a"}, skillNames(set)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(set.Templates) != 1 {
		t.Errorf("templates %+v", set.Templates)
	}
}
