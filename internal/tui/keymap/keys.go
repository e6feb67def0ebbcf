// Package keymap holds relay's named keybinding actions, their defaults,
// the user's keybindings.json overrides and structural key matching.
//
// Keys are written in the spec's syntax (keybindings.md): modifiers in any
// order joined with "+", then one key name such as "pageUp", "escape" or
// "]". Keys are compared as (modifiers, code) pairs, never as strings, so
// "shift+ctrl+p" and "ctrl+shift+p" are the same key and bubbletea's own
// spelling ("pgup", "esc") never leaks into configuration.
package keymap

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// Mod is a set of modifiers, in the spec's four-modifier vocabulary.
type Mod uint8

const (
	Ctrl Mod = 1 << iota
	Alt
	Shift
	Super
)

// Key is one parsed key: modifiers plus a code. Code is a bubbletea key code
// (tea.KeyEnter, tea.KeyPgUp, ...) or a printable rune; letters are stored
// lower case.
type Key struct {
	Mod  Mod
	Code rune
}

// named maps the spec's key names (lower-cased) to codes.
var named = map[string]rune{
	"escape":    tea.KeyEscape,
	"esc":       tea.KeyEscape,
	"enter":     tea.KeyEnter,
	"return":    tea.KeyEnter,
	"tab":       tea.KeyTab,
	"space":     tea.KeySpace,
	"backspace": tea.KeyBackspace,
	"delete":    tea.KeyDelete,
	"insert":    tea.KeyInsert,
	"clear":     tea.KeyBegin,
	"home":      tea.KeyHome,
	"end":       tea.KeyEnd,
	"pageup":    tea.KeyPgUp,
	"pagedown":  tea.KeyPgDown,
	"up":        tea.KeyUp,
	"down":      tea.KeyDown,
	"left":      tea.KeyLeft,
	"right":     tea.KeyRight,
	"f1":        tea.KeyF1,
	"f2":        tea.KeyF2,
	"f3":        tea.KeyF3,
	"f4":        tea.KeyF4,
	"f5":        tea.KeyF5,
	"f6":        tea.KeyF6,
	"f7":        tea.KeyF7,
	"f8":        tea.KeyF8,
	"f9":        tea.KeyF9,
	"f10":       tea.KeyF10,
	"f11":       tea.KeyF11,
	"f12":       tea.KeyF12,
}

// display is the spec spelling used when printing a key.
var display = map[rune]string{
	tea.KeyEscape:    "escape",
	tea.KeyEnter:     "enter",
	tea.KeyTab:       "tab",
	tea.KeySpace:     "space",
	tea.KeyBackspace: "backspace",
	tea.KeyDelete:    "delete",
	tea.KeyInsert:    "insert",
	tea.KeyBegin:     "clear",
	tea.KeyHome:      "home",
	tea.KeyEnd:       "end",
	tea.KeyPgUp:      "pageUp",
	tea.KeyPgDown:    "pageDown",
	tea.KeyUp:        "up",
	tea.KeyDown:      "down",
	tea.KeyLeft:      "left",
	tea.KeyRight:     "right",
}

const symbols = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?"

// ParseKey parses one key in the spec syntax.
func ParseKey(s string) (Key, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return Key{}, fmt.Errorf("empty key")
	}
	var keyPart string
	var modPart string
	switch {
	case s == "+":
		keyPart = "+"
	case strings.HasSuffix(s, "++"):
		keyPart, modPart = "+", strings.TrimSuffix(s, "++")
	default:
		i := strings.LastIndexByte(s, '+')
		if i < 0 {
			keyPart = s
		} else {
			keyPart, modPart = s[i+1:], s[:i]
		}
	}
	var k Key
	if modPart != "" {
		for _, m := range strings.Split(modPart, "+") {
			var bit Mod
			switch strings.ToLower(strings.TrimSpace(m)) {
			case "ctrl":
				bit = Ctrl
			case "alt":
				bit = Alt
			case "shift":
				bit = Shift
			case "super":
				bit = Super
			default:
				return Key{}, fmt.Errorf("invalid key %q: unknown modifier %q", orig, m)
			}
			if k.Mod&bit != 0 {
				return Key{}, fmt.Errorf("invalid key %q: modifier %q repeated", orig, m)
			}
			k.Mod |= bit
		}
	}
	if code, ok := named[strings.ToLower(keyPart)]; ok {
		k.Code = code
		return k, nil
	}
	if utf8.RuneCountInString(keyPart) == 1 {
		r, _ := utf8.DecodeRuneInString(keyPart)
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune(symbols, r):
			k.Code = r
			return k, nil
		case r >= 'A' && r <= 'Z':
			k.Code = unicode.ToLower(r)
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("invalid key %q: unknown key name %q", orig, keyPart)
}

// MustParse is ParseKey for the built-in tables.
func MustParse(s string) Key {
	k, err := ParseKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

// String prints the key in the spec syntax, modifiers in a fixed order.
func (k Key) String() string {
	var b strings.Builder
	if k.Mod&Ctrl != 0 {
		b.WriteString("ctrl+")
	}
	if k.Mod&Alt != 0 {
		b.WriteString("alt+")
	}
	if k.Mod&Shift != 0 {
		b.WriteString("shift+")
	}
	if k.Mod&Super != 0 {
		b.WriteString("super+")
	}
	if d, ok := display[k.Code]; ok {
		b.WriteString(d)
	} else if k.Code >= tea.KeyF1 && k.Code <= tea.KeyF12 {
		fmt.Fprintf(&b, "f%d", k.Code-tea.KeyF1+1)
	} else {
		b.WriteRune(k.Code)
	}
	return b.String()
}

// fromEvent normalises a bubbletea key into the spec's (mod, code) space.
func fromEvent(ev tea.Key) Key {
	var m Mod
	if ev.Mod&tea.ModCtrl != 0 {
		m |= Ctrl
	}
	if ev.Mod&(tea.ModAlt|tea.ModMeta) != 0 {
		m |= Alt
	}
	if ev.Mod&tea.ModShift != 0 {
		m |= Shift
	}
	if ev.Mod&tea.ModSuper != 0 {
		m |= Super
	}
	code := ev.Code
	switch {
	case code >= 'A' && code <= 'Z':
		code = unicode.ToLower(code)
		m |= Shift
	case code == tea.KeyKpEnter:
		code = tea.KeyEnter
	case code == tea.KeyKpPgUp:
		code = tea.KeyPgUp
	case code == tea.KeyKpPgDown:
		code = tea.KeyPgDown
	case code == tea.KeyKpHome:
		code = tea.KeyHome
	case code == tea.KeyKpEnd:
		code = tea.KeyEnd
	case code == tea.KeyKpUp:
		code = tea.KeyUp
	case code == tea.KeyKpDown:
		code = tea.KeyDown
	case code == tea.KeyKpLeft:
		code = tea.KeyLeft
	case code == tea.KeyKpRight:
		code = tea.KeyRight
	case code == tea.KeyKpInsert:
		code = tea.KeyInsert
	case code == tea.KeyKpDelete:
		code = tea.KeyDelete
	case code == tea.KeyKpBegin:
		code = tea.KeyBegin
	}
	return Key{Mod: m, Code: code}
}

// MatchesEvent reports whether the pressed key is k. Besides the exact
// (modifiers, code) pair it accepts the forms legacy terminals and the
// Kitty protocol use for the same physical key: a shifted symbol such as
// "?" arrives as "?" (legacy) or as shift+"/" with ShiftedCode '?' (Kitty),
// ctrl+- and ctrl+/ arrive as the C0 byte 0x1f (ctrl+_), and ctrl+backspace
// arrives as 0x08 (ctrl+h).
func (k Key) MatchesEvent(ev tea.Key) bool {
	e := fromEvent(ev)
	if e == k {
		return true
	}
	if ev.ShiftedCode != 0 && ev.ShiftedCode == k.Code && e.Mod&^Shift == k.Mod {
		return true
	}
	legacy := ev.BaseCode == 0 && ev.ShiftedCode == 0
	if legacy && e.Mod == k.Mod && k.Mod&Ctrl != 0 {
		switch {
		case e.Code == '_' && (k.Code == '-' || k.Code == '/'):
			return true
		case e.Code == 'h' && k.Code == tea.KeyBackspace:
			return true
		}
	}
	return false
}
