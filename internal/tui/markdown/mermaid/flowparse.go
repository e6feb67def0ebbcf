package mermaid

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

type head uint8

const (
	headNone head = iota
	headArrow
	headCircle
	headCross
)

type fnode struct {
	id    string
	lines []string
	round bool
	dummy bool

	rank, order  int
	rsize, osize int   // extent along the rank axis and the order axis
	pos          int   // order-axis start
	inLabel      int   // widest label of an edge arriving here
	minority     bool  // a hop against the flow attaches here (off-centre)
	style        uint8 // a dummy's line style (its edge's)
}

type fedge struct {
	from, to int
	label    string
	style    uint8
	head     head
}

type flowchart struct {
	dir      string // TD, BT, LR, RL
	nodes    []*fnode
	byID     map[string]int
	edges    []fedge
	warnings []string
}

var (
	// A link with its text between the dashes: A -- text --> B.
	inlineLinkRe = regexp.MustCompile(`^\s*(--|==|-\.)\s+([^|]+?)\s+(-{2,}>|-{3,}|={2,}>|={3,}|\.+->|\.+-|-{2,}o|-{2,}x)\s*`)
	// A link, optionally followed by |text|.
	linkRe = regexp.MustCompile(`^\s*(<)?(-{2,}|={2,}|-\.+-|-\.+)(>|o\b|x\b)?\s*(?:\|([^|]*)\|)?\s*`)
)

var ignoredFlowKeywords = map[string]bool{
	"classDef": true, "class": true, "style": true, "linkStyle": true, "click": true, "direction": true,
	"subgraph": true, "end": true, "accTitle": true, "accDescr": true, "title": true,
}

func parseFlowchart(src string) (*flowchart, error) {
	header, stmts := statements(src, true)
	f := &flowchart{dir: "TD", byID: map[string]int{}}
	if fs := strings.Fields(header); len(fs) > 1 {
		switch d := strings.ToUpper(fs[1]); d {
		case "TD", "TB", "BT", "LR", "RL":
			f.dir = d
			if d == "TB" {
				f.dir = "TD"
			}
		default:
			f.warnings = append(f.warnings, fmt.Sprintf("unknown direction %q, drawn top-down", fs[1]))
		}
	}
	for _, st := range stmts {
		word := strings.FieldsFunc(st, func(r rune) bool { return r == ' ' || r == '\t' || r == ':' })[0]
		if ignoredFlowKeywords[word] {
			continue
		}
		if err := f.statement(st); err != nil {
			f.warnings = append(f.warnings, fmt.Sprintf("skipped %q: %v", truncate(st, 40), err))
		}
		if len(f.nodes) > maxNodes || len(f.edges) > maxEdges {
			return nil, fmt.Errorf("more than %d nodes or %d edges", maxNodes, maxEdges)
		}
	}
	if len(f.nodes) == 0 {
		return nil, fmt.Errorf("no nodes")
	}
	return f, nil
}

// statement reads "group (link group)*" where a group is "node (& node)*".
func (f *flowchart) statement(s string) error {
	// Parse fully before adding anything, so a bad statement adds nothing.
	type ref struct {
		id    string
		lines []string
		round bool
		shape bool
	}
	type link struct {
		label string
		style uint8
		head  head
	}
	var groups [][]ref
	var links []link
	rest := s
	for {
		var g []ref
		for {
			r, n, err := parseNodeRef(rest)
			if err != nil {
				return err
			}
			g = append(g, ref(r))
			rest = strings.TrimLeft(rest[n:], " \t")
			if strings.HasPrefix(rest, "&") {
				rest = strings.TrimLeft(rest[1:], " \t")
				continue
			}
			break
		}
		groups = append(groups, g)
		if rest == "" {
			break
		}
		l, n, ok := parseLink(rest)
		if !ok {
			return fmt.Errorf("unexpected %q", truncate(rest, 20))
		}
		links = append(links, l)
		rest = rest[n:]
		if strings.TrimSpace(rest) == "" {
			return fmt.Errorf("link without a target")
		}
	}
	ids := make([][]int, len(groups))
	for i, g := range groups {
		for _, r := range g {
			ids[i] = append(ids[i], f.node(r.id, r.lines, r.round, r.shape))
		}
	}
	for i, l := range links {
		for _, a := range ids[i] {
			for _, b := range ids[i+1] {
				f.edges = append(f.edges, fedge{from: a, to: b, label: l.label, style: l.style, head: l.head})
			}
		}
	}
	return nil
}

func (f *flowchart) node(id string, lines []string, round, shaped bool) int {
	if i, ok := f.byID[id]; ok {
		if shaped {
			f.nodes[i].lines, f.nodes[i].round = lines, round
		}
		return i
	}
	if !shaped {
		lines = []string{id}
	}
	f.nodes = append(f.nodes, &fnode{id: id, lines: lines, round: round})
	f.byID[id] = len(f.nodes) - 1
	return len(f.nodes) - 1
}

type nodeRef struct {
	id    string
	lines []string
	round bool
	shape bool
}

var shapes = []struct {
	open, close string
	round       bool
}{
	{"[[", "]]", false}, {"[(", ")]", true}, {"[/", "/]", false}, {"[/", "\\]", false}, {"[\\", "\\]", false},
	{"[\\", "/]", false}, {"((", "))", true}, {"([", "])", true}, {"{{", "}}", true}, {"[", "]", false},
	{"(", ")", true}, {"{", "}", true}, {">", "]", false},
}

// parseNodeRef reads an id with an optional shape and label; n is the
// number of bytes used.
func parseNodeRef(s string) (nodeRef, int, error) {
	i := 0
	for i < len(s) {
		r := rune(s[i])
		if r >= 0x80 || unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return nodeRef{}, 0, fmt.Errorf("expected a node at %q", truncate(s, 20))
	}
	ref := nodeRef{id: s[:i]}
	rest := s[i:]
	for _, sh := range shapes {
		if !strings.HasPrefix(rest, sh.open) {
			continue
		}
		body := rest[len(sh.open):]
		var text string
		var end int
		if t := strings.TrimLeft(body, " "); strings.HasPrefix(t, `"`) {
			q := strings.IndexByte(t[1:], '"')
			if q < 0 {
				return nodeRef{}, 0, fmt.Errorf("node %q: label is missing its closing quote", ref.id)
			}
			text = t[1 : 1+q]
			after := t[2+q:]
			after2 := strings.TrimLeft(after, " ")
			if !strings.HasPrefix(after2, sh.close) {
				continue
			}
			end = len(s) - len(after2) + len(sh.close)
		} else {
			c := strings.Index(body, sh.close)
			if c < 0 {
				continue
			}
			text = body[:c]
			end = len(s) - len(body) + c + len(sh.close)
		}
		ref.lines, ref.round, ref.shape = labelLines(text), sh.round, true
		i = end
		break
	}
	if strings.HasPrefix(s[i:], ":::") {
		j := i + 3
		for j < len(s) && s[j] != ' ' && s[j] != '-' && s[j] != '&' {
			j++
		}
		i = j
	}
	if !ref.shape && i < len(s) && strings.ContainsRune("[({>", rune(s[i])) {
		return nodeRef{}, 0, fmt.Errorf("node %q: label is missing its closing bracket", ref.id)
	}
	return ref, i, nil
}

func parseLink(s string) (l struct {
	label string
	style uint8
	head  head
}, n int, ok bool) {
	styleOf := func(tok string) uint8 {
		switch {
		case strings.Contains(tok, "."):
			return dotted
		case strings.Contains(tok, "="):
			return thick
		}
		return solid
	}
	headOf := func(tok string) head {
		switch {
		case strings.HasSuffix(tok, ">"):
			return headArrow
		case strings.HasSuffix(tok, "o"):
			return headCircle
		case strings.HasSuffix(tok, "x"):
			return headCross
		}
		return headNone
	}
	if m := inlineLinkRe.FindStringSubmatch(s); m != nil {
		l.label = strings.Join(labelLines(m[2]), " ")
		l.style, l.head = styleOf(m[1]+m[3]), headOf(m[3])
		return l, len(m[0]), true
	}
	if m := linkRe.FindStringSubmatch(s); m != nil {
		l.label = strings.Join(labelLines(m[4]), " ")
		l.style, l.head = styleOf(m[2]), headOf(m[3])
		return l, len(m[0]), true
	}
	return l, 0, false
}
