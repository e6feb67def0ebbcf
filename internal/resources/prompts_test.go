package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`"API compatibility" now`, []string{"API compatibility", "now"}},
		{`it's 'a b'`, []string{"its a", "b"}},
		{`x "" y`, []string{"x", "", "y"}},
		{"tab\tsep\nnl", []string{"tab", "sep", "nl"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseArgs(tt.in)); diff != "" {
			t.Errorf("ParseArgs(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSubstitute(t *testing.T) {
	args := []string{"one", "two words", "three"}
	tests := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"positional", "a=$1 b=$2 c=$3 d=$4", args, "a=one b=two words c=three d="},
		{"multi-digit", "$10|$1", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"}, "ten|1"},
		{"all", "[$@] [$ARGUMENTS]", args, "[one two words three] [one two words three]"},
		{"default used", "Focus on ${1:-correctness}.", nil, "Focus on correctness."},
		{"default unused", "Focus on ${1:-correctness}.", []string{"speed"}, "Focus on speed."},
		{"empty arg takes default", "${1:-d}", []string{""}, "d"},
		{"all default", "${@:-everything} ${ARGUMENTS:-x}", nil, "everything x"},
		{"all default unused", "${@:-everything}", args, "one two words three"},
		{"slice from", "${@:2}", args, "two words three"},
		{"slice with length", "${@:1:2}", args, "one two words"},
		{"slice past end", "${@:5}|${@:2:9}", args, "|two words three"},
		{"slice zero", "${@:0}", args, "one two words three"},
		{"no recursion", "$1 $2", []string{"$2", "x"}, "$2 x"},
		{"no recursion in all", "$@", []string{"$1"}, "$1"},
		{"literal dollars", "cost $ 5, ${HOME}, $PATH, ${@:x}, trailing $", args, "cost $ 5, ${HOME}, $PATH, ${@:x}, trailing $"},
		{"unicode", "→$1←", []string{"é"}, "→é←"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Substitute(tt.in, tt.args); got != tt.want {
				t.Errorf("Substitute(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTemplateDiscovery(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.root, map[string]string{
		"agent/prompts/review.md":           "---\ndescription: Review staged git changes\nargument-hint: \"[focus]\"\n---\nReview the staged changes. Focus on ${1:-correctness}.\n",
		"agent/prompts/nodesc.md":           "\n\n  First line becomes the description, cut at sixty characters for the list\nSecond.\n",
		"agent/prompts/nested/deep.md":      "Direct children only.\n",
		"agent/prompts/.hidden.md":          "Hidden.\n",
		"agent/prompts/notes.txt":           "Not markdown.\n",
		"agent/prompts/shared.md":           "User shared.\n",
		"repo/sub/.relay/prompts/shared.md": "Project shared.\n",
		"agent/more/a/b.md":                 "Settings directories recurse.\n",
		"cli/one.md":                        "From the command line.\n",
	})
	o := e.opts()
	o.Prompts = []Entry{{Entry: "more", Scope: ScopeUser, BaseDir: e.agent}}
	o.PromptPaths = []string{filepath.Join(e.root, "cli", "one.md"), "nope.md"}
	set := Load(o)
	var names []string
	for _, tp := range set.Templates {
		names = append(names, tp.Name)
	}
	if diff := cmp.Diff([]string{"shared", "b", "nodesc", "review", "one"}, names); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	rv, _ := set.Template("review")
	if rv.Description != "Review staged git changes" || rv.ArgumentHint != "[focus]" || rv.Content != "Review the staged changes. Focus on ${1:-correctness}." {
		t.Errorf("review %+v", rv)
	}
	nd, _ := set.Template("nodesc")
	if nd.Description != "First line becomes the description, cut at sixty characters ..." {
		t.Errorf("description %q", nd.Description)
	}
	sh, _ := set.Template("shared")
	if sh.Content != "Project shared." || sh.Source.Scope != ScopeProject || sh.Source.Source != SourceAuto {
		t.Errorf("shared %+v", sh)
	}
	var kinds []string
	for _, d := range set.Diagnostics {
		kinds = append(kinds, d.Kind+": "+d.Message)
	}
	want := []string{`collision: prompt template name "shared" collision`, "error: prompt template path does not exist"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}

	o.NoPrompts = true
	if set := Load(o); len(set.Templates) != 1 || set.Templates[0].Name != "one" {
		t.Errorf("no-prompts: %+v", set.Templates)
	}
	o.NoPrompts, o.ProjectTrusted = false, false
	if sh, _ := Load(o).Template("shared"); sh.Content != "User shared." {
		t.Errorf("untrusted: %+v", sh)
	}
}

func TestExpand(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.agent, map[string]string{
		"skills/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: PDFs.\n---\n\n# PDF tools\n\nRead `references/formats.md`.\n\n",
		"skills/gone/SKILL.md":      skillMD("gone", "Removed later."),
		"prompts/review.md":         "---\ndescription: Review\n---\nReview $1 then ${@:2}.\n",
	})
	set := Load(e.opts())
	if err := os.Remove(filepath.Join(e.agent, "skills", "gone", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	skillPath := filepath.Join(e.agent, "skills", "pdf-tools", "SKILL.md")
	block := "<skill name=\"pdf-tools\" location=\"" + skillPath + "\">\nReferences are relative to " + filepath.Dir(skillPath) + ".\n\n# PDF tools\n\nRead `references/formats.md`.\n</skill>"
	tests := []struct {
		in, want     string
		handled, err bool
	}{
		{"/skill:pdf-tools", block, true, false},
		{"/skill:pdf-tools   extract report.pdf  ", block + "\n\nextract report.pdf", true, false},
		{"/skill:pdf-tools\nmulti\nline", block + "\n\nmulti\nline", true, false},
		{"/skill:unknown do it", "/skill:unknown do it", false, false},
		{"/skill:gone", "/skill:gone", false, true},
		{`/review main.go "the tests" docs`, "Review main.go then the tests docs.", true, false},
		{"/review", "Review  then .", true, false},
		{"/reviewer x", "/reviewer x", false, false},
		{"/home/user/file.txt", "/home/user/file.txt", false, false},
		{"review x", "review x", false, false},
		{" /review x", " /review x", false, false},
	}
	for _, tt := range tests {
		got, handled, err := set.Expand(tt.in)
		if got != tt.want || handled != tt.handled || (err != nil) != tt.err {
			t.Errorf("Expand(%q) = %q, %v, %v; want %q, %v, err=%v", tt.in, got, handled, err, tt.want, tt.handled, tt.err)
		}
	}
	var nilSet *Set
	if got, ok, _ := nilSet.Expand("/review x"); ok || got != "/review x" {
		t.Errorf("nil set expanded")
	}
}

func TestFormatSkillsPrompt(t *testing.T) {
	skills := []Skill{
		{Name: "pdf-tools", Description: "Extract text & tables from <PDF> files. Use when \"reading\" PDFs.", FilePath: "/home/u/.relay/agent/skills/pdf-tools/SKILL.md"},
		{Name: "manual", Description: "Only by command.", FilePath: "/x/manual/SKILL.md", DisableModelInvocation: true},
		{Name: "git's", Description: "Git.", FilePath: "/x/git/SKILL.md"},
	}
	golden(t, "skills_prompt_read.txt", FormatSkillsPrompt(skills, "read"))
	if got := FormatSkillsPrompt(skills, "bash"); !strings.Contains(got, "Use bash to load a skill's file when the task matches its description.") {
		t.Errorf("bash variant:\n%s", got)
	}
	if got := FormatSkillsPrompt(skills[1:2], "read"); got != "" {
		t.Errorf("only hidden skills: %q", got)
	}
}
