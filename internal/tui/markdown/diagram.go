package markdown

import (
	"errors"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/tui/markdown/mermaid"
)

func isMermaid(lang string) bool {
	f := strings.Fields(lang)
	return len(f) > 0 && strings.EqualFold(f[0], "mermaid")
}

// mermaidCache keeps laid-out diagrams by source: a diagram is laid out
// once however often the transcript is redrawn or re-wrapped (the art
// does not depend on the width; only whether it fits does).
type mermaidCache struct {
	m map[string]mermaidResult
}

type mermaidResult struct {
	art *mermaid.Art
	err error
}

const mermaidCacheMax = 64

func (c *mermaidCache) get(src string) mermaidResult {
	if r, ok := c.m[src]; ok {
		return r
	}
	if c.m == nil || len(c.m) >= mermaidCacheMax {
		c.m = map[string]mermaidResult{}
	}
	a, err := mermaid.Render(src)
	r := mermaidResult{a, err}
	c.m[src] = r
	return r
}

// diagram draws a mermaid block in avail cells. note is non-empty when
// the source should be shown instead; it says why.
func (r *Renderer) diagram(src string, avail int) (lines []string, note string) {
	if r.streaming && r.opts.Mermaid == "final" {
		return nil, "Mermaid diagram (drawn when the answer is complete)"
	}
	res := r.mermaid.get(src)
	switch {
	case errors.Is(res.err, mermaid.ErrUnsupported):
		return nil, fmt.Sprintf("Mermaid %s diagram (source shown; only flowcharts and sequence diagrams are drawn)", mermaid.Kind(src))
	case res.err != nil:
		if r.streaming {
			return nil, "Mermaid diagram"
		}
		return nil, "Mermaid diagram not drawn: " + res.err.Error()
	case res.art.Width > avail:
		return nil, fmt.Sprintf("Mermaid diagram (source shown; it needs %d columns)", res.art.Width)
	case len(res.art.Warnings) > 0 && !r.streaming:
		w := res.art.Warnings[0]
		if n := len(res.art.Warnings); n > 1 {
			w += fmt.Sprintf(" (+%d more)", n-1)
		}
		return nil, "Mermaid diagram not drawn: " + w
	}
	th := r.opts.Theme
	role := map[mermaid.Class]string{mermaid.Border: "borderMuted", mermaid.Text: "text", mermaid.Edge: "accent", mermaid.EdgeLabel: "muted"}
	for _, row := range res.art.Lines {
		var b strings.Builder
		for _, s := range row {
			if rl, ok := role[s.Class]; ok {
				b.WriteString(th.Fg(rl, s.Text))
			} else {
				b.WriteString(s.Text)
			}
		}
		lines = append(lines, b.String())
	}
	return lines, ""
}
