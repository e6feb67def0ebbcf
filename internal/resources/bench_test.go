package resources

import (
	"fmt"
	"testing"
)

// BenchmarkLoad measures start-up discovery: 200 skills (each with a few
// resource files) and 50 templates in the agent dir.
func BenchmarkLoad(b *testing.B) {
	e := newEnv(b)
	files := map[string]string{}
	for i := range 200 {
		dir := fmt.Sprintf("skills/group%d/skill-%d/", i%10, i)
		files[dir+"SKILL.md"] = skillMD(fmt.Sprintf("skill-%d", i), "Does thing "+fmt.Sprint(i)+".")
		files[dir+"references/guide.md"] = "# Guide\n"
		files[dir+"scripts/run.sh"] = "echo\n"
	}
	for i := range 50 {
		files[fmt.Sprintf("prompts/t%d.md", i)] = "---\ndescription: T\n---\nDo $1.\n"
	}
	writeTree(b, e.agent, files)
	o := e.opts()
	b.ResetTimer()
	for b.Loop() {
		set := Load(o)
		if len(set.Skills) != 200 || len(set.Templates) != 50 {
			b.Fatalf("%d skills %d templates", len(set.Skills), len(set.Templates))
		}
	}
}
