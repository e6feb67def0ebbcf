package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestKeyDataRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		k    tea.KeyPressMsg
		want string
	}{
		{"letter", tea.KeyPressMsg{Code: 'a', Text: "a"}, "a"},
		{"shifted letter", tea.KeyPressMsg{Code: 'a', Mod: tea.ModShift, Text: "A"}, "A"},
		{"wide rune", tea.KeyPressMsg{Code: '界', Text: "界"}, "界"},
		{"enter", tea.KeyPressMsg{Code: tea.KeyEnter}, "\r"},
		{"shift+enter", tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}, "\x1b[13;2u"},
		{"alt+enter", tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}, "\x1b\r"},
		{"escape", tea.KeyPressMsg{Code: tea.KeyEscape}, "\x1b"},
		{"tab", tea.KeyPressMsg{Code: tea.KeyTab}, "\t"},
		{"shift+tab", tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}, "\x1b[Z"},
		{"backspace", tea.KeyPressMsg{Code: tea.KeyBackspace}, "\x7f"},
		{"alt+backspace", tea.KeyPressMsg{Code: tea.KeyBackspace, Mod: tea.ModAlt}, "\x1b\x7f"},
		{"up", tea.KeyPressMsg{Code: tea.KeyUp}, "\x1b[A"},
		{"down", tea.KeyPressMsg{Code: tea.KeyDown}, "\x1b[B"},
		{"ctrl+up", tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModCtrl}, "\x1b[1;5A"},
		{"shift+left", tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModShift}, "\x1b[1;2D"},
		{"home", tea.KeyPressMsg{Code: tea.KeyHome}, "\x1b[H"},
		{"end", tea.KeyPressMsg{Code: tea.KeyEnd}, "\x1b[F"},
		{"pgup", tea.KeyPressMsg{Code: tea.KeyPgUp}, "\x1b[5~"},
		{"delete", tea.KeyPressMsg{Code: tea.KeyDelete}, "\x1b[3~"},
		{"ctrl+delete", tea.KeyPressMsg{Code: tea.KeyDelete, Mod: tea.ModCtrl}, "\x1b[3;5~"},
		{"f1", tea.KeyPressMsg{Code: tea.KeyF1}, "\x1bOP"},
		{"f5", tea.KeyPressMsg{Code: tea.KeyF5}, "\x1b[15~"},
		{"ctrl+c", tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, "\x03"},
		{"ctrl+a", tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}, "\x01"},
		{"alt+x", tea.KeyPressMsg{Code: 'x', Mod: tea.ModAlt}, "\x1bx"},
		{"ctrl+alt+b", tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl | tea.ModAlt}, "\x1b\x02"},
		{"space", tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, " "},
		{"ctrl+space", tea.KeyPressMsg{Code: tea.KeySpace, Mod: tea.ModCtrl}, "\x00"},
		{"ctrl+shift+p", tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl | tea.ModShift}, "\x1b[112;6u"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keyData(tt.k)
			if got != tt.want {
				t.Fatalf("keyData = %q, want %q", got, tt.want)
			}
			back := decodeKeys(got)
			if len(back) != 1 {
				t.Fatalf("decoded %d keys from %q", len(back), got)
			}
			if back[0].Code != tt.k.Code || back[0].Mod != tt.k.Mod {
				t.Errorf("decoded %q as %v (code %d mod %v), want code %d mod %v", got, back[0], back[0].Code, back[0].Mod, tt.k.Code, tt.k.Mod)
			}
		})
	}
}

func TestDecodeKeysSequence(t *testing.T) {
	ks := decodeKeys("ab\x1b[A\r" + pasteData("x"))
	if len(ks) != 4 || ks[0].Text != "a" || ks[2].Code != tea.KeyUp || ks[3].Code != tea.KeyEnter {
		t.Fatalf("decoded %v", ks)
	}
}
