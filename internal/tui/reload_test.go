package tui_test

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func TestReloadAppliesLiveSettings(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	o.Reload = func() (tui.ReloadResult, error) {
		n := opts()
		n.Fullscreen = false // tuiMode: needs a restart
		n.HideThinkingBlock = true
		n.Mermaid = "off"
		n.OutputPad = 0
		return tui.ReloadResult{Settings: &n, ThemeSetting: "light",
			Notes:    []string{"Skills: 1 · added review", "Context files: /p/AGENTS.md"},
			Commands: []tui.Command{{Name: "review", Description: "Review the diff"}},
			Warnings: []string{"keybindings.json: unknown action \"app.nope\""}}, nil
	}
	d := start(t, f, o, 160, 30)
	d.Type("/reload")
	d.Press("enter")
	fr := d.Frame()
	for _, want := range []string{
		"Reloaded keybindings, themes, settings and resources",
		"Settings changed: theme, hideThinkingBlock, outputPad, markdown.mermaid, tuiMode (applies at the next start)",
		"Skills: 1 · added review",
		"Context files: /p/AGENTS.md",
		`unknown action "app.nope"`,
	} {
		if !strings.Contains(fr, want) {
			t.Errorf("missing %q in:\n%s", want, fr)
		}
	}
	if got := tui.ThemeOf(d.M.(*tui.Model)).Name; got != "light" {
		t.Errorf("theme %q", got)
	}
	// The new template is offered by completion.
	d.Type("/revi")
	if fr := d.Frame(); !strings.Contains(fr, "Review the diff") {
		t.Errorf("new command not completed:\n%s", fr)
	}
}

func TestResourceChanges(t *testing.T) {
	old := &resources.Set{Skills: []resources.Skill{{Name: "a"}, {Name: "b"}}, Templates: []resources.Template{{Name: "fix"}}}
	cur := &resources.Set{Skills: []resources.Skill{{Name: "b"}, {Name: "c"}}, Templates: []resources.Template{{Name: "fix"}}}
	got := strings.Join(tui.ResourceChanges(old, cur), "\n")
	want := "Skills: 2 · added c · removed a\nPrompt templates: 1 (unchanged)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
