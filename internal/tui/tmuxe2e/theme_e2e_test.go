package tmuxe2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// screenSGR is the pane with its attributes as SGR sequences.
func (e *tmuxEnv) screenSGR() string {
	out, _ := e.tmux("capture-pane", "-p", "-e", "-t", e.session).Output()
	return string(out)
}

// sgrBefore returns the SGR parameters in effect where text starts on its
// line of the captured pane: faint, and whether a background is set.
func sgrBefore(screen, text string) (found, faint, bg bool) {
	for _, line := range strings.Split(screen, "\n") {
		i := strings.Index(line, text)
		if i < 0 {
			continue
		}
		s := line[:i]
		for {
			j := strings.Index(s, "\x1b[")
			if j < 0 {
				break
			}
			s = s[j+2:]
			k := strings.IndexByte(s, 'm')
			if k < 0 {
				break
			}
			ps := strings.Split(s[:k], ";")
			for n := 0; n < len(ps); n++ {
				switch p := ps[n]; {
				case p == "" || p == "0":
					faint, bg = false, false
				case p == "2":
					faint = true
				case p == "22":
					faint = false
				case p == "49":
					bg = false
				case p == "38" || p == "48":
					if p == "48" {
						bg = true
					}
					if n+1 < len(ps) && ps[n+1] == "5" {
						n += 2
					} else {
						n += 4
					}
				case len(p) == 2 && (p[0] == '4' && p[1] != '9') || len(p) == 3 && p[:2] == "10":
					bg = true
				}
			}
			s = s[k+1:]
		}
		return true, faint, bg
	}
	return false, false, false
}

// Issue 17 item 7: in the system theme's fallback (the terminal does not
// answer the colour query; tmux here) the user's typing and the answer are
// drawn at normal intensity, and a prompt has a background.
func TestE2EFallbackThemeNotFaint(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "# Heading words\n\nplain answer words\n\n---\n\nafter the rule\n\n```go\nfunc x() {}\n```\nafter the code"}}}, nil)
	e.start()
	e.text("typed words")
	e.waitFor("typed words", 5*time.Second)
	if found, faint, _ := sgrBefore(e.screenSGR(), "typed words"); !found || faint {
		t.Errorf("typing drawn faint (found=%v):\n%q", found, e.screenSGR())
	}
	e.keys("Enter")
	e.waitFor("after the code", 10*time.Second)
	s := e.screenSGR()
	for _, w := range []string{"Heading words", "plain answer words", "after the rule", "func", "after the code"} {
		if found, faint, bg := sgrBefore(s, w); !found || faint || bg {
			t.Errorf("%q: found=%v faint=%v background=%v", w, found, faint, bg)
		}
	}
	if found, _, bg := sgrBefore(s, "typed words"); !found || !bg {
		t.Errorf("prompt has no background (found=%v):\n%q", found, s)
	}
	e.text("more typing")
	e.waitFor("more typing", 5*time.Second)
	if found, faint, _ := sgrBefore(e.screenSGR(), "more typing"); !found || faint {
		t.Errorf("typing after an answer drawn faint (found=%v)", found)
	}
}

// Issue 17 item 11: a mermaid block in an answer is drawn as a diagram.
func TestE2EMermaidDrawn(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "Here:\n\n```mermaid\nflowchart LR\n  A[Client] -->|req| B(Server)\n```\n\nand\n\n```mermaid\nsequenceDiagram\n  Alice->>Bob: hello\n```\n\ndone", ChunkSize: 7}}}, nil)
	e.start()
	e.text("draw")
	e.keys("Enter")
	s := e.waitFor("done", 10*time.Second)
	for _, want := range []string{"│ Client ├", "req─▶│ Server │", "│ Alice │", "├──────", "▶│"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "```mermaid") {
		t.Errorf("source shown:\n%s", s)
	}
}
