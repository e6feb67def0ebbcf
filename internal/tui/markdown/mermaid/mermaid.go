// Package mermaid lays out Mermaid diagrams as box-drawing art for the
// terminal: flowcharts (graph/flowchart, all four directions) and sequence
// diagrams. Other kinds are reported as unsupported so the caller can show
// the source instead.
//
// The layout is a small layered drawing: nodes are ranked along the flow,
// ordered within a rank by the barycentre of their neighbours, and edges
// are routed orthogonally through the channels between ranks. Lines are
// drawn on a canvas of direction bits, so crossings and junctions get the
// right glyph (┬ ┼ ├) wherever segments meet.
package mermaid

import (
	"errors"
	"fmt"
	"strings"
)

// Class says what a run of the drawing is, so a theme can colour it.
type Class uint8

const (
	None      Class = iota // blank filler
	Border                 // box outlines, lifelines, dividers
	Text                   // node and participant labels
	Edge                   // connectors and arrowheads
	EdgeLabel              // text on an edge
)

// Span is a run of cells of one class.
type Span struct {
	Class Class
	Text  string
}

// Art is a laid-out diagram.
type Art struct {
	// Lines are the rows, each a list of spans; joined, every row is
	// Width cells or fewer (trailing blanks are trimmed).
	Lines [][]Span
	// Width is the widest row in cells.
	Width int
	// Warnings name statements that were skipped; the drawing shows the
	// rest.
	Warnings []string
}

// Plain returns the rows without classes.
func (a *Art) Plain() []string {
	out := make([]string, len(a.Lines))
	for i, row := range a.Lines {
		var b strings.Builder
		for _, s := range row {
			b.WriteString(s.Text)
		}
		out[i] = b.String()
	}
	return out
}

// ErrUnsupported is returned for diagram kinds that are not laid out.
var ErrUnsupported = errors.New("diagram kind is not drawn")

// Limits keep a hostile or runaway diagram from costing much: beyond them
// Render refuses and the caller shows the source.
const (
	maxNodes    = 200
	maxEdges    = 400
	maxLabel    = 120 // cells of one label line
	maxCanvas   = 400 * 400
	maxSeqItems = 400
)

// Kind is the diagram kind named by the first meaningful line ("flowchart",
// "sequence", or the header word for others; "" for none).
func Kind(src string) string {
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%%") {
			continue
		}
		word := strings.Fields(line)[0]
		switch word {
		case "graph", "flowchart", "flowchart-elk":
			return "flowchart"
		case "sequenceDiagram":
			return "sequence"
		}
		return word
	}
	return ""
}

// Render lays out src. It fails with ErrUnsupported (wrapped, naming the
// kind) for kinds it does not draw and with a description for sources it
// cannot read at all or that exceed its limits.
func Render(src string) (*Art, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	switch k := Kind(src); k {
	case "flowchart":
		return renderFlowchart(src)
	case "sequence":
		return renderSequence(src)
	case "":
		return nil, errors.New("empty diagram")
	default:
		return nil, fmt.Errorf("%s: %w", k, ErrUnsupported)
	}
}

// statements splits the body (after the header line) into trimmed
// statements: lines, and ';'-separated parts of a line, without comments.
func statements(src string, splitSemicolons bool) (header string, out []string) {
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%%") {
			continue
		}
		if header == "" {
			header = line
			lines = lines[i+1:]
			break
		}
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%%") {
			continue
		}
		if !splitSemicolons {
			out = append(out, line)
			continue
		}
		for _, part := range splitOutsideQuotes(line, ';') {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return header, out
}

func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	quoted := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// labelLines splits a label at <br> and newlines, unquotes it, and bounds
// each line.
func labelLines(s string) []string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	for _, br := range []string{"<br/>", "<br />", "<br>", "\\n"} {
		s = strings.ReplaceAll(s, br, "\n")
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, l))
		if w := width(l); w > maxLabel {
			l = truncate(l, maxLabel)
		}
		out = append(out, l)
	}
	return out
}
