package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestConfigSelector(t *testing.T) {
	var toggled []string
	toggle := func(it ConfigItem, on bool) error {
		if it.Name == "broken" {
			return errors.New("cannot write")
		}
		toggled = append(toggled, it.Name+map[bool]string{true: "+", false: "-"}[on])
		return nil
	}
	m := &configModel{width: 80, height: 24, scopes: []ConfigScope{
		{Title: "Global Resources", File: "settings.json", Toggle: toggle, Items: []ConfigItem{
			{Group: "npm:a (user)", Kind: "extensions", Name: "one.ts", Enabled: true, Editable: true},
			{Group: "npm:a (user)", Kind: "skills", Name: "review", Enabled: true, Editable: true},
			{Group: "User settings", Kind: "themes", Name: "broken", Editable: true},
		}},
		{Title: "Project Local Resources", File: ".relay/settings.json", Toggle: toggle, Items: []ConfigItem{
			{Group: "npm:a (user)", Kind: "extensions", Name: "one.ts", Enabled: true},
		}},
	}}
	key := func(s string) {
		msg := tea.KeyPressMsg{Text: s}
		switch s {
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		}
		m.Update(msg)
	}
	key("down")
	key("space")
	if strings.Join(toggled, " ") != "review-" || m.scopes[0].Items[1].Enabled {
		t.Fatalf("toggled %v, item %+v", toggled, m.scopes[0].Items[1])
	}
	view := m.View().Content
	for _, want := range []string{"Global Resources", "npm:a (user)", "> ", "[ ] review", "review disabled (saved to settings.json)"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	key("down")
	key("space")
	if !strings.Contains(m.View().Content, "Error: cannot write") || m.scopes[0].Items[2].Enabled {
		t.Errorf("a failed save must show and not flip:\n%s", m.View().Content)
	}
	// Typing filters; backspace widens again.
	for _, r := range "one" {
		key(string(r))
	}
	if v := m.View().Content; strings.Contains(v, "review") || !strings.Contains(v, "one.ts") {
		t.Errorf("filter:\n%s", v)
	}
	key("backspace")
	key("backspace")
	key("backspace")
	// Tab switches scope; inherited rows do not toggle.
	key("tab")
	key("space")
	if v := m.View().Content; !strings.Contains(v, "Project Local Resources") || !strings.Contains(v, "(inherited)") || !strings.Contains(v, "comes from another settings file") {
		t.Errorf("project scope:\n%s", v)
	}
	if len(toggled) != 1 {
		t.Errorf("inherited row toggled: %v", toggled)
	}
}

// The project mode cycles every row, the user's included, through
// inherit, a project load or unload, and back.
func TestConfigSelectorProjectCycle(t *testing.T) {
	var calls []string
	cycle := func(it ConfigItem) (ConfigItem, error) {
		calls = append(calls, it.Name+":"+it.Override)
		next := map[string]string{"inherit": "unload", "unload": "load", "load": "inherit"}[it.Override]
		it.Override, it.Enabled = next, next != "unload"
		return it, nil
	}
	m := &configModel{width: 100, height: 24, scopes: []ConfigScope{
		{Title: "Project Local Resources", File: ".relay/settings.json", Cycle: cycle, Items: []ConfigItem{
			{Group: "User (~/.relay/agent/)", Kind: "extensions", Name: "user.ts", Enabled: true, Override: "inherit", Inherited: true},
		}},
	}}
	space := func() { m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}) }
	if v := m.View().Content; !strings.Contains(v, "[x] user.ts  inherited global") || !strings.Contains(v, "cycle inherit/+/-") {
		t.Fatalf("inherited row:\n%s", v)
	}
	space()
	if v := m.View().Content; !strings.Contains(v, "[-] user.ts  project unload") || !strings.Contains(v, "user.ts unloaded by the project (saved to .relay/settings.json)") {
		t.Fatalf("after one press:\n%s", v)
	}
	space()
	if v := m.View().Content; !strings.Contains(v, "[+] user.ts  project load") {
		t.Fatalf("after two presses:\n%s", v)
	}
	space()
	if v := m.View().Content; !strings.Contains(v, "user.ts inherited (saved") || !strings.Contains(v, "inherited global") {
		t.Fatalf("after three presses:\n%s", v)
	}
	if strings.Join(calls, " ") != "user.ts:inherit user.ts:unload user.ts:load" {
		t.Errorf("cycle calls %v", calls)
	}
}
