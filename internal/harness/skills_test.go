package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSkillUsage(t *testing.T) {
	skill := SkillInfo{Name: "pdf", BaseDir: "/skills/pdf", FilePath: "/skills/pdf/SKILL.md"}
	c := newCore(t, func(cfg *Config) { cfg.SkillList = func() []SkillInfo { return []SkillInfo{skill} } })
	c.OnUserMessage("Fill the form", true)
	read := func(id, p string) { run(c, toolCall(id, "read", map[string]any{"path": p}), nil, false) }
	read("1", "/skills/pdf/SKILL.md")                                              // entry, step 0; action at step 2
	read("2", "/Skills/PDF/references/forms.md")                                   // reference (case-insensitive), step 1
	run(c, toolCall("3", "edit", map[string]any{"path": "form.json"}), nil, false) // action, step 2
	run(c, bashCall("4", "python /skills/pdf/scripts/fill.py form.json"), nil, true)
	read("5", "/skills/pdf/references/forms.md") // revisit, no action after
	read("6", "other.go")

	usage := c.Status().Skills.Usage
	want := []SkillUsage{{
		Skill: "pdf", Events: 4, Fanout: 3, EffectiveUptake: 0.5,
		Early: 0.5, Middle: 0.25, Late: 0.25, Revisits: 1,
	}}
	if diff := cmp.Diff(want, usage); diff != "" {
		t.Fatalf("usage (-want +got):\n%s", diff)
	}
	// The next request keeps the last run's numbers until it loads a skill.
	c.OnUserMessage("Thanks", true)
	if got := c.Status().Skills.Usage; len(got) != 1 || got[0].Events != 4 {
		t.Fatalf("last run usage lost: %+v", got)
	}
	if !strings.Contains(c.Status().Format(), "pdf: 4 loads, fanout 3, effective uptake 50%, phases 50/25/25%") {
		t.Fatal(c.Status().Format())
	}
}

func TestAuditSkill(t *testing.T) {
	entry := strings.Join([]string{
		"---",
		"name: pdf",
		"description: \"" + strings.Repeat("d", 301) + "\"",
		"---",
		"Read [forms](references/forms.md) when filling a form.",
		"See `scripts/fill.py`.",
		"Load [missing](references/gone.md) if needed.",
		"Write the result to `docs/report.pdf` when done.",
	}, "\n")
	got := AuditSkill(entry, []string{"references/forms.md", "scripts/fill.py", "assets/logo.png"})
	var codes []string
	for _, f := range got {
		codes = append(codes, f.Code+":"+f.Resource)
	}
	want := []string{
		"description-too-long:",
		"reference-without-trigger:scripts/fill.py",
		"missing-resource:references/gone.md",
		"unreferenced-resource:assets/logo.png",
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	long := strings.Repeat("line\n", 301)
	if f := AuditSkill(long, nil); len(f) != 1 || f[0].Code != "monolithic-entry" {
		t.Fatalf("monolithic: %+v", f)
	}
	if f := AuditSkill(long+"When needed load [x](references/x.md)", []string{"references/x.md"}); len(f) != 1 || f[0].Code != "oversized-entry" {
		t.Fatalf("oversized: %+v", f)
	}
}

func TestAuditSkillDir(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "references"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("Use [a](references/a.md) before editing.\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "references", "a.md"), []byte("a"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "references", "b.md"), []byte("b"), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".git", "x"), []byte("x"), 0o644))
	s := SkillInfo{Name: "s", BaseDir: dir, FilePath: filepath.Join(dir, "SKILL.md")}
	got := AuditSkillDir(s)
	if len(got) != 1 || got[0].Code != "unreferenced-resource" || got[0].Resource != "references/b.md" {
		t.Fatalf("findings %+v", got)
	}
	if AuditSkillDir(SkillInfo{Name: "loose", BaseDir: dir, FilePath: filepath.Join(dir, "loose.md")}) != nil {
		t.Fatal("loose markdown skills are not audited")
	}
	c := newCore(t, func(cfg *Config) { cfg.SkillList = func() []SkillInfo { return []SkillInfo{s} } })
	if !strings.Contains(c.Status().Format(), "s: references/b.md is never referenced by the entry file, so the agent has no route to it.") {
		t.Fatal(c.Status().Format())
	}
}
