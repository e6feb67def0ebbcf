package resources

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Package skills and templates come after every other source: a user
// skill of the same name wins, the rest load with the package as source.
func TestPackageResources(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.root, map[string]string{
		"agent/skills/dup/SKILL.md": skillMD("dup", "User auto."),
		"pkg/skills/dup/SKILL.md":   skillMD("dup", "From the package."),
		"pkg/skills/pk/SKILL.md":    skillMD("pk", "Package only."),
		"pkg/prompts/hello.md":      "---\ndescription: Hello\n---\nHello $1",
		"agent/prompts/hello.md":    "User hello",
	})
	pkg := filepath.Join(e.root, "pkg")
	file := func(p string) PackageFile {
		return PackageFile{Path: filepath.Join(pkg, p), Source: "npm:demo", Scope: ScopeUser, BaseDir: pkg}
	}
	o := e.opts()
	o.PackageSkills = []PackageFile{file("skills/dup/SKILL.md"), file("skills/pk/SKILL.md")}
	o.PackagePrompts = []PackageFile{file("prompts/hello.md")}
	set := Load(o)
	if d := cmp.Diff([]string{"dup", "pk"}, skillNames(set)); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	if set.Skills[0].Description != "User auto." {
		t.Errorf("user skill must win: %+v", set.Skills[0])
	}
	if s := set.Skills[1].Source; s.Source != "npm:demo" || s.Origin != OriginPackage || s.Scope != ScopeUser || s.BaseDir != pkg {
		t.Errorf("package skill source %+v", s)
	}
	if len(set.Templates) != 1 || set.Templates[0].Content != "User hello" {
		t.Errorf("templates %+v", set.Templates)
	}
	o.NoSkills, o.NoPrompts = true, true
	if set := Load(o); len(set.Skills)+len(set.Templates) != 0 {
		t.Errorf("-ns/-np must drop package resources: %v %v", skillNames(set), set.Templates)
	}
}
