package keymap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func press(k tea.Key) tea.KeyPressMsg { return tea.KeyPressMsg(k) }

func TestParseKey(t *testing.T) {
	tests := []struct {
		in   string
		want Key
	}{
		{"ctrl+shift+x", Key{Ctrl | Shift, 'x'}},
		{"shift+ctrl+x", Key{Ctrl | Shift, 'x'}},
		{"alt+ctrl+x", Key{Ctrl | Alt, 'x'}},
		{"ctrl+shift+alt+x", Key{Ctrl | Shift | Alt, 'x'}},
		{"super+k", Key{Super, 'k'}},
		{"ctrl+1", Key{Ctrl, '1'}},
		{"pageUp", Key{0, tea.KeyPgUp}},
		{"pagedown", Key{0, tea.KeyPgDown}},
		{"escape", Key{0, tea.KeyEscape}},
		{"esc", Key{0, tea.KeyEscape}},
		{"return", Key{0, tea.KeyEnter}},
		{"ctrl+]", Key{Ctrl, ']'}},
		{"ctrl+-", Key{Ctrl, '-'}},
		{"+", Key{0, '+'}},
		{"ctrl++", Key{Ctrl, '+'}},
		{"f12", Key{0, tea.KeyF12}},
		{"?", Key{0, '?'}},
		{"clear", Key{0, tea.KeyBegin}},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseKey(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "ctrl+", "hyper+x", "ctrl+ctrl+x", "pgup", "f13", "é"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
}

func TestKeyString(t *testing.T) {
	for _, s := range []string{"ctrl+shift+p", "pageUp", "escape", "ctrl+alt+]", "f5", "shift+enter"} {
		if got := MustParse(s).String(); got != s {
			t.Errorf("%q printed as %q", s, got)
		}
	}
	if got := MustParse("shift+ctrl+p").String(); got != "ctrl+shift+p" {
		t.Errorf("got %q", got)
	}
}

func TestMatchesEvent(t *testing.T) {
	tests := []struct {
		key  string
		ev   tea.Key
		want bool
	}{
		{"ctrl+p", tea.Key{Code: 'p', Mod: tea.ModCtrl}, true},
		{"ctrl+p", tea.Key{Code: 'p', Mod: tea.ModCtrl | tea.ModShift}, false},
		{"shift+ctrl+p", tea.Key{Code: 'p', Mod: tea.ModCtrl | tea.ModShift}, true},
		{"pageUp", tea.Key{Code: tea.KeyPgUp}, true},
		{"pageUp", tea.Key{Code: tea.KeyKpPgUp}, true},
		{"enter", tea.Key{Code: tea.KeyKpEnter}, true},
		{"shift+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, true},
		{"enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, false},
		{"ctrl+j", tea.Key{Code: 'j', Mod: tea.ModCtrl}, true}, // legacy LF
		{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, true},
		{"alt+b", tea.Key{Code: 'b', Mod: tea.ModMeta}, true},
		// shift+l typed as "L" by a legacy terminal
		{"shift+l", tea.Key{Code: 'l', Mod: tea.ModShift, ShiftedCode: 'L', Text: "L"}, true},
		{"shift+l", tea.Key{Code: 'L', Text: "L"}, true},
		// "?" legacy and Kitty
		{"?", tea.Key{Code: '?', Text: "?"}, true},
		{"?", tea.Key{Code: '/', ShiftedCode: '?', Mod: tea.ModShift, Text: "?"}, true},
		{"/", tea.Key{Code: '/', ShiftedCode: '?', Mod: tea.ModShift, Text: "?"}, false},
		// ctrl+- from a legacy terminal arrives as 0x1f = ctrl+_
		{"ctrl+-", tea.Key{Code: '_', Mod: tea.ModCtrl}, true},
		{"ctrl+-", tea.Key{Code: '-', Mod: tea.ModCtrl}, true},
		{"ctrl+backspace", tea.Key{Code: 'h', Mod: tea.ModCtrl}, true},
		{"ctrl+backspace", tea.Key{Code: tea.KeyBackspace, Mod: tea.ModCtrl}, true},
		{"ctrl+]", tea.Key{Code: ']', Mod: tea.ModCtrl}, true},
		{"ctrl+alt+]", tea.Key{Code: ']', Mod: tea.ModCtrl | tea.ModAlt}, true},
		{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, true},
		{"a", tea.Key{Code: 'a', Text: "a", Mod: tea.ModCapsLock}, true},
		{"super+k", tea.Key{Code: 'k', Mod: tea.ModSuper}, true},
	}
	for _, tt := range tests {
		if got := MustParse(tt.key).MatchesEvent(tt.ev); got != tt.want {
			t.Errorf("%s vs %+v = %v, want %v", tt.key, tt.ev, got, tt.want)
		}
	}
}

func TestPlatformDefaults(t *testing.T) {
	tests := []struct {
		p      Platform
		action string
		want   string
	}{
		{Unix, "tui.editor.undo", "ctrl+-"},
		{Windows, "tui.editor.undo", "ctrl+z"},
		{WSL, "tui.editor.undo", "alt+z"},
		{Unix, "app.suspend", "ctrl+z"},
		{Windows, "app.suspend", ""},
		{WSL, "app.suspend", "ctrl+z"},
		{Unix, "tui.altScreen.previousPrompt", "ctrl+shift+up"},
		{WSL, "tui.altScreen.previousPrompt", "ctrl+shift+up/ctrl+up"},
		{Windows, "tui.altScreen.search", "ctrl+f"},
		{Unix, "tui.altScreen.search", "ctrl+shift+f"},
		{Unix, "app.message.followUp", "alt+enter"},
		{Windows, "app.message.followUp", "ctrl+q"},
		{WSL, "app.message.dequeue", "alt+q"},
		{Windows, "app.model.cycleBackward", "alt+p"},
		{Unix, "app.model.cycleBackward", "ctrl+shift+p"},
		{WSL, "app.clipboard.pasteImage", "alt+v"},
		{Unix, "tui.editor.historyPrevious", ""},
	}
	for _, tt := range tests {
		if got := New(tt.p).Label(ID{tt.action}); got != tt.want {
			t.Errorf("platform %d %s = %q, want %q", tt.p, tt.action, got, tt.want)
		}
	}
}

func TestApplyOverrides(t *testing.T) {
	data := `{
		"app.session.new": "ctrl+shift+n",
		"app.session.tree": ["ctrl+shift+t", "alt+shift+t"],
		"tui.altScreen.pageUp": [],
		"app.nope": "ctrl+x",
		"app.model.select": "ctrl+hyper+l",
		"app.thinking.toggle": 5,
		"tui.editor.historyPrevious": "ctrl+d"
	}`
	km, warnings, err := Apply(Unix, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !km.Matches(AppSessionNew, press(tea.Key{Code: 'n', Mod: tea.ModCtrl | tea.ModShift})) {
		t.Error("app.session.new not rebound")
	}
	if got := km.Label(AppSessionTree); got != "ctrl+shift+t/alt+shift+t" {
		t.Errorf("tree = %q", got)
	}
	if km.Matches(AltScreenPageUp, press(tea.Key{Code: tea.KeyPgUp})) {
		t.Error("empty list did not disable")
	}
	// Invalid entries keep their defaults.
	if km.Label(AppModelSelect) != "ctrl+l" || km.Label(AppThinkingToggle) != "ctrl+t" {
		t.Error("invalid entries changed bindings")
	}
	// A user key is taken from other actions' defaults on the same screen.
	if got := km.Label(EditorDeleteCharForward); got != "delete" {
		t.Errorf("deleteCharForward = %q, want ctrl+d removed", got)
	}
	if got := km.Label(AppExit); got != "" {
		t.Errorf("app.exit = %q, want ctrl+d removed", got)
	}
	// ...but not from actions of other screens.
	if got := km.Label(AppSessionDelete); got != "ctrl+d" {
		t.Errorf("session.delete = %q", got)
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{`unknown action "app.nope"`, `app.model.select: invalid key "ctrl+hyper+l"`, "app.thinking.toggle: value must be"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
}

func TestUserConflictWarns(t *testing.T) {
	_, warnings, err := Apply(Unix, []byte(`{"app.session.new":"ctrl+n","app.session.fork":"ctrl+n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "ctrl+n is bound to both") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	km, w, err := Load(dir, Unix)
	if err != nil || len(w) != 0 || km.Label(AppModelSelect) != "ctrl+l" {
		t.Fatalf("missing file: %v %v", w, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"app.model.select":"f2"}`), 0o644)
	km, _, err = Load(dir, Unix)
	if err != nil || km.Label(AppModelSelect) != "f2" {
		t.Fatalf("load: %v %q", err, km.Label(AppModelSelect))
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{broken`), 0o644)
	km, _, err = Load(dir, Unix)
	if err == nil || km.Label(AppModelSelect) != "ctrl+l" {
		t.Fatal("malformed file should error and keep defaults")
	}
}

func TestEveryDefaultParsesOnEveryPlatform(t *testing.T) {
	for _, p := range []Platform{Unix, Windows, WSL} {
		km := New(p) // MustParse panics on a bad table entry
		if len(km.Actions()) < 90 {
			t.Fatalf("only %d actions", len(km.Actions()))
		}
	}
}

func TestHotkeysText(t *testing.T) {
	txt := New(Unix).HotkeysText()
	for _, want := range []string{"Cursor movement\n", "ctrl+l", "Open model selector", "Tree Navigation"} {
		if !strings.Contains(txt, want) {
			t.Errorf("hotkeys lack %q", want)
		}
	}
	if strings.Contains(txt, "Select the previous prompt history entry") {
		t.Error("unbound action listed")
	}
}

func TestPickerBindingKeepsSharedListKeys(t *testing.T) {
	km, _, err := Apply(Unix, []byte(`{"app.session.rename":"enter"}`))
	if err != nil {
		t.Fatal(err)
	}
	if km.Label(SelectConfirm) != "enter" {
		t.Errorf("tui.select.confirm lost enter: %q", km.Label(SelectConfirm))
	}
}
