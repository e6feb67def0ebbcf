package markdown

import (
	"strings"
)

// sgrState is the SGR attributes in effect at a point of a styled string.
type sgrState struct {
	fg, bg                                      string
	bold, faint, italic, underline, strike, rev bool
}

func (s sgrState) empty() bool { return s == sgrState{} }

func (s sgrState) open() string {
	var b strings.Builder
	if s.bold {
		b.WriteString("\x1b[1m")
	}
	if s.faint {
		b.WriteString("\x1b[2m")
	}
	if s.italic {
		b.WriteString("\x1b[3m")
	}
	if s.underline {
		b.WriteString("\x1b[4m")
	}
	if s.rev {
		b.WriteString("\x1b[7m")
	}
	if s.strike {
		b.WriteString("\x1b[9m")
	}
	b.WriteString(s.fg)
	b.WriteString(s.bg)
	return b.String()
}

// apply updates the state with one SGR parameter list ("38;2;1;2;3").
func (s *sgrState) apply(params string) {
	if params == "" {
		*s = sgrState{}
		return
	}
	p := strings.Split(params, ";")
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case "0":
			*s = sgrState{}
		case "1":
			s.bold = true
		case "2":
			s.faint = true
		case "3":
			s.italic = true
		case "4":
			s.underline = true
		case "7":
			s.rev = true
		case "9":
			s.strike = true
		case "22":
			s.bold, s.faint = false, false
		case "23":
			s.italic = false
		case "24":
			s.underline = false
		case "27":
			s.rev = false
		case "29":
			s.strike = false
		case "39":
			s.fg = ""
		case "49":
			s.bg = ""
		case "38", "48":
			n := 0
			if i+1 < len(p) && p[i+1] == "5" {
				n = 2
			} else if i+1 < len(p) && p[i+1] == "2" {
				n = 4
			}
			if i+n < len(p) {
				seq := "\x1b[" + strings.Join(p[i:i+n+1], ";") + "m"
				if p[i] == "38" {
					s.fg = seq
				} else {
					s.bg = seq
				}
			}
			i += n
		default:
			if len(p[i]) == 2 && (p[i][0] == '3' || p[i][0] == '9') {
				s.fg = "\x1b[" + p[i] + "m"
			} else if len(p[i]) == 2 && p[i][0] == '4' || len(p[i]) == 3 && p[i][:2] == "10" {
				s.bg = "\x1b[" + p[i] + "m"
			}
		}
	}
}

// scan applies every SGR sequence in line to s.
func (s *sgrState) scan(line string) {
	for {
		i := strings.Index(line, "\x1b[")
		if i < 0 {
			return
		}
		line = line[i+2:]
		j := 0
		for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';') {
			j++
		}
		if j < len(line) && line[j] == 'm' {
			s.apply(line[:j])
		}
		line = line[j:]
	}
}

// SelfContained makes every line carry its own styling: the attributes
// active at its start are re-opened and anything left open is reset at its
// end, so any line can be drawn alone (virtualized scrolling).
func SelfContained(lines []string) []string {
	var st sgrState
	for i, l := range lines {
		prefix := ""
		if !st.empty() {
			prefix = st.open()
		}
		st.scan(l)
		if !st.empty() {
			l += "\x1b[0m"
		}
		lines[i] = prefix + l
	}
	return lines
}
