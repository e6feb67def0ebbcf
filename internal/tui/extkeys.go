package tui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// keyData encodes a key press as the bytes a terminal sends for it, the
// form extension components receive (hooks.Component.HandleInput): legacy
// xterm sequences where one exists, the kitty keyboard protocol's CSI u
// form for modified keys that have none.
func keyData(k tea.KeyPressMsg) string {
	mods := k.Mod & (tea.ModShift | tea.ModAlt | tea.ModCtrl)
	if k.Text != "" && mods&(tea.ModCtrl|tea.ModAlt) == 0 {
		return k.Text
	}
	// xterm's modifier parameter: 1 + shift + 2*alt + 4*ctrl.
	param := 1
	if mods&tea.ModShift != 0 {
		param++
	}
	if mods&tea.ModAlt != 0 {
		param += 2
	}
	if mods&tea.ModCtrl != 0 {
		param += 4
	}
	p := strconv.Itoa(param)
	if seq, ok := csiLetter[k.Code]; ok {
		if param == 1 {
			return "\x1b[" + seq
		}
		return "\x1b[1;" + p + seq
	}
	if n, ok := csiTilde[k.Code]; ok {
		if param == 1 {
			return "\x1b[" + n + "~"
		}
		return "\x1b[" + n + ";" + p + "~"
	}
	if c, ok := ss3[k.Code]; ok {
		if param == 1 {
			return "\x1bO" + c
		}
		return "\x1b[1;" + p + c
	}
	alt := ""
	if mods&tea.ModAlt != 0 {
		alt = "\x1b"
	}
	switch k.Code {
	case tea.KeyEnter:
		switch mods &^ tea.ModAlt {
		case 0:
			return alt + "\r"
		}
		return kittyKey(tea.KeyEnter, p)
	case tea.KeyTab:
		switch mods {
		case 0:
			return "\t"
		case tea.ModShift:
			return "\x1b[Z"
		}
		return kittyKey(tea.KeyTab, p)
	case tea.KeyBackspace:
		switch mods &^ tea.ModAlt {
		case 0:
			return alt + "\x7f"
		case tea.ModCtrl:
			return alt + "\x08"
		}
		return kittyKey(tea.KeyBackspace, p)
	case tea.KeyEscape:
		if mods == 0 {
			return "\x1b"
		}
		return kittyKey(tea.KeyEscape, p)
	case tea.KeySpace:
		switch mods &^ tea.ModAlt {
		case 0:
			return alt + " "
		case tea.ModCtrl:
			return alt + "\x00"
		}
		return kittyKey(tea.KeySpace, p)
	}
	if mods&^tea.ModAlt == tea.ModCtrl {
		// Ctrl+letter and friends are C0 bytes.
		switch c := k.Code; {
		case c >= 'a' && c <= 'z':
			return alt + string(rune(c-'a'+1))
		case c >= '@' && c <= '_':
			return alt + string(rune(c-'@'))
		}
	}
	if mods == tea.ModAlt && k.Code < 0x7f && k.Code >= 0x20 {
		return "\x1b" + string(k.Code)
	}
	if k.Code > 0 && k.Code <= 0x10ffff {
		if mods == 0 || mods == tea.ModShift {
			return string(k.Code)
		}
		return kittyKey(k.Code, p)
	}
	return k.Text
}

func kittyKey(code rune, param string) string {
	return "\x1b[" + strconv.Itoa(int(code)) + ";" + param + "u"
}

var (
	csiLetter = map[rune]string{
		tea.KeyUp: "A", tea.KeyDown: "B", tea.KeyRight: "C", tea.KeyLeft: "D",
		tea.KeyHome: "H", tea.KeyEnd: "F",
	}
	csiTilde = map[rune]string{
		tea.KeyInsert: "2", tea.KeyDelete: "3", tea.KeyPgUp: "5", tea.KeyPgDown: "6",
		tea.KeyF5: "15", tea.KeyF6: "17", tea.KeyF7: "18", tea.KeyF8: "19",
		tea.KeyF9: "20", tea.KeyF10: "21", tea.KeyF11: "23", tea.KeyF12: "24",
	}
	ss3 = map[rune]string{tea.KeyF1: "P", tea.KeyF2: "Q", tea.KeyF3: "R", tea.KeyF4: "S"}
)

// pasteData is a paste as terminal input: bracketed.
func pasteData(s string) string { return "\x1b[200~" + s + "\x1b[201~" }

// decodeKeys parses terminal input data back into key presses (an
// extension editor handing a key back to relay, a terminal input listener
// replacing one). Pastes and unknown sequences are skipped; a bounded
// number of keys is returned.
func decodeKeys(data string) []tea.KeyPressMsg {
	var d uv.EventDecoder
	buf := []byte(data)
	var out []tea.KeyPressMsg
	pasting := false
	for len(buf) > 0 && len(out) < 256 {
		n, ev := d.Decode(buf)
		if n <= 0 {
			break
		}
		switch ev := ev.(type) {
		case uv.PasteStartEvent:
			pasting = true
		case uv.PasteEndEvent:
			pasting = false
		case uv.KeyPressEvent:
			if !pasting {
				out = append(out, tea.KeyPressMsg(ev))
			}
		}
		buf = buf[n:]
	}
	return out
}
