package mermaid

import (
	"fmt"
	"regexp"
	"strings"
)

type seqKind uint8

const (
	seqMessage seqKind = iota
	seqNote
	seqDivider
)

type seqEvent struct {
	kind       seqKind
	from, to   int // participants (note: the span)
	text       string
	style      uint8
	head, tail rune // arrowheads at the target and at the source (0: none)
	notePos    string
}

type sequence struct {
	names    []string // participant ids
	labels   []string
	byID     map[string]int
	events   []seqEvent
	warnings []string
}

var (
	participantRe = regexp.MustCompile(`^(?:participant|actor)\s+(.+?)(?:\s+as\s+(.+))?$`)
	messageRe     = regexp.MustCompile(`^(.+?)\s*(<<-->>|<<->>|-->>|->>|--x|-x|--\)|-\)|-->|->)\s*([+-]?)\s*(.+?)\s*:\s?(.*)$`)
	noteRe        = regexp.MustCompile(`^(?i:note)\s+(left of|right of|over)\s+([^:]+?)\s*:\s?(.*)$`)
	blockRe       = regexp.MustCompile(`^(loop|alt|opt|par|critical|break|else|and|option)\b\s*(.*)$`)
)

func parseSequence(src string) (*sequence, error) {
	_, stmts := statements(src, false)
	s := &sequence{byID: map[string]int{}}
	var stack []string // open blocks: "box", "rect" (no dividers) or others
	autonumber := 0
	for _, st := range stmts {
		if len(s.events) > maxSeqItems || len(s.names) > maxNodes {
			return nil, fmt.Errorf("more than %d items", maxSeqItems)
		}
		word := strings.Fields(st)[0]
		switch {
		case word == "autonumber":
			autonumber = 1
			continue
		case word == "activate" || word == "deactivate" || word == "title" || word == "destroy" ||
			word == "accTitle" || word == "accDescr" || strings.HasPrefix(word, "links") || word == "link":
			continue
		case word == "box" || word == "rect":
			stack = append(stack, word)
			continue
		case word == "end":
			if n := len(stack); n > 0 {
				top := stack[n-1]
				stack = stack[:n-1]
				if top == "box" || top == "rect" {
					continue
				}
			}
			s.events = append(s.events, seqEvent{kind: seqDivider, text: "end"})
			continue
		}
		if m := blockRe.FindStringSubmatch(st); m != nil {
			switch m[1] {
			case "else", "and", "option":
			default:
				stack = append(stack, m[1])
			}
			s.events = append(s.events, seqEvent{kind: seqDivider, text: strings.TrimSpace(m[1] + " " + oneLabel(m[2]))})
			continue
		}
		if strings.HasPrefix(st, "create ") {
			st = strings.TrimSpace(strings.TrimPrefix(st, "create "))
		}
		if m := participantRe.FindStringSubmatch(st); m != nil {
			i := s.participant(strings.TrimSpace(m[1]))
			if m[2] != "" {
				s.labels[i] = oneLabel(m[2])
			}
			continue
		}
		if m := noteRe.FindStringSubmatch(st); m != nil {
			parts := strings.Split(m[2], ",")
			a := s.participant(strings.TrimSpace(parts[0]))
			b := a
			if len(parts) > 1 {
				b = s.participant(strings.TrimSpace(parts[1]))
			}
			if a > b {
				a, b = b, a
			}
			s.events = append(s.events, seqEvent{kind: seqNote, from: a, to: b, text: oneLabel(m[3]), notePos: strings.ToLower(m[1])})
			continue
		}
		if m := messageRe.FindStringSubmatch(st); m != nil {
			ev := seqEvent{kind: seqMessage, from: s.participant(strings.TrimSpace(m[1])), to: s.participant(strings.TrimSpace(m[4])), text: oneLabel(m[5])}
			arrow := m[2]
			if strings.HasPrefix(arrow, "--") || strings.HasPrefix(arrow, "<<--") {
				ev.style = dotted
			}
			switch {
			case strings.HasSuffix(arrow, ">>"):
				ev.head = '▶'
			case strings.HasSuffix(arrow, "x"):
				ev.head = '×'
			case strings.HasSuffix(arrow, ")"):
				ev.head = '▷'
			}
			if strings.HasPrefix(arrow, "<<") {
				ev.tail = '▶'
			}
			if autonumber > 0 {
				ev.text = fmt.Sprintf("%d. %s", autonumber, ev.text)
				autonumber++
			}
			s.events = append(s.events, ev)
			continue
		}
		s.warnings = append(s.warnings, fmt.Sprintf("skipped %q", truncate(st, 40)))
	}
	if len(s.names) == 0 {
		return nil, fmt.Errorf("no participants")
	}
	return s, nil
}

func oneLabel(s string) string { return strings.Join(labelLines(s), " ") }

func (s *sequence) participant(id string) int {
	if i, ok := s.byID[id]; ok {
		return i
	}
	s.names = append(s.names, id)
	s.labels = append(s.labels, oneLabel(id))
	s.byID[id] = len(s.names) - 1
	return len(s.names) - 1
}

func renderSequence(src string) (*Art, error) {
	s, err := parseSequence(src)
	if err != nil {
		return nil, err
	}
	n := len(s.names)
	boxW := make([]int, n)
	for i, l := range s.labels {
		boxW[i] = width(l) + 4
	}
	// Distances between neighbouring lifelines.
	dist := make([]int, max(0, n-1))
	for i := range dist {
		dist[i] = boxW[i] - boxW[i]/2 + boxW[i+1]/2 + 2
	}
	need := func(i, j, d int) { // lifelines i < j at least d apart
		have := 0
		for k := i; k < j; k++ {
			have += dist[k]
		}
		if have < d {
			dist[j-1] += d - have
		}
	}
	rightExtra := 0 // room needed right of the last lifeline
	leftExtra := 0  // room needed left of the first lifeline
	for _, ev := range s.events {
		L := width(ev.text)
		switch ev.kind {
		case seqMessage:
			a, b := min(ev.from, ev.to), max(ev.from, ev.to)
			if a == b {
				if a < n-1 {
					need(a, a+1, L+6)
				} else {
					rightExtra = max(rightExtra, L+6)
				}
				continue
			}
			need(a, b, L+4)
		case seqNote:
			switch ev.notePos {
			case "right of":
				if ev.from < n-1 {
					need(ev.from, ev.from+1, L+7)
				} else {
					rightExtra = max(rightExtra, L+6)
				}
			case "left of":
				if ev.from > 0 {
					need(ev.from-1, ev.from, L+7)
				} else {
					leftExtra = max(leftExtra, L+6)
				}
			default:
				if ev.from != ev.to {
					need(ev.from, ev.to, L)
				}
			}
		}
	}
	center := make([]int, n)
	center[0] = max(boxW[0]/2, leftExtra)
	for i := 1; i < n; i++ {
		center[i] = center[i-1] + dist[i-1]
	}
	// Notes over one participant may be wider than its box.
	for _, ev := range s.events {
		if ev.kind == seqNote && ev.notePos == "over" {
			x, _ := noteOverBox(ev, center)
			if x < 0 {
				for i := range center {
					center[i] -= x
				}
			}
		}
	}
	total := center[n-1] + boxW[n-1] - boxW[n-1]/2 + rightExtra
	if total > 400 {
		return nil, fmt.Errorf("diagram too wide")
	}
	cv := &canvas{}
	drawHeads := func(y int) {
		for i, l := range s.labels {
			x := center[i] - boxW[i]/2
			cv.box(x, y, boxW[i], 3, false, Border)
			cv.text(x+2, y+1, l, Text)
		}
	}
	drawHeads(0)
	y := 3
	skip := map[[2]int]bool{} // (lifeline, row) cells a lifeline does not cross; -1: all
	for _, ev := range s.events {
		y++ // a blank lifeline row before each item
		switch ev.kind {
		case seqDivider:
			skip[[2]int{-1, y}] = true
			cv.line(0, y, total-1, y, solid, Border)
			cv.text(3, y, " "+ev.text+" ", EdgeLabel)
			y++
		case seqNote:
			x, w := noteOverBox(ev, center)
			switch ev.notePos {
			case "right of":
				x, w = center[ev.from]+2, width(ev.text)+4
			case "left of":
				w = width(ev.text) + 4
				x = center[ev.from] - 2 - w + 1
			}
			cv.box(x, y, w, 3, false, Border)
			cv.text(x+(w-width(ev.text))/2, y+1, ev.text, Text)
			// A note hides the lifelines it covers.
			for i := range center {
				if center[i] >= x && center[i] <= x+w-1 {
					for row := y; row < y+3; row++ {
						skip[[2]int{i, row}] = true
					}
				}
			}
			y += 3
		case seqMessage:
			a, b := center[ev.from], center[ev.to]
			if ev.from == ev.to {
				cv.path([][2]int{{a, y}, {a + 3, y}, {a + 3, y + 2}, {a + 1, y + 2}}, ev.style, Edge)
				for _, p := range [][2]int{{a + 3, y}, {a + 3, y + 2}} {
					cv.at(p[0], p[1]).round = true
				}
				cv.text(a+5, y+1, ev.text, EdgeLabel)
				if ev.head != 0 {
					cv.put(a+1, y+2, mirror(ev.head), Edge)
				}
				y += 3
				continue
			}
			lo, hi := min(a, b), max(a, b)
			cv.text(lo+1+(hi-lo-1-width(ev.text))/2, y, ev.text, EdgeLabel)
			y++
			dir := sign(b - a)
			end := b
			if ev.head != 0 {
				end = b - dir
			}
			start := a
			if ev.tail != 0 {
				start = a + dir
			}
			cv.line(start, y, end, y, ev.style, Edge)
			if ev.head != 0 {
				h := ev.head
				if dir < 0 {
					h = mirror(h)
				}
				cv.put(end, y, h, Edge)
			}
			if ev.tail != 0 {
				h := ev.tail
				if dir > 0 {
					h = mirror(h)
				}
				cv.put(start, y, h, Edge)
			}
			y++
		}
	}
	y++
	foot := y
	for i, c := range center {
		cv.mark(c, 2, down, Border)
		for row := 3; row < foot; row++ {
			if !skip[[2]int{-1, row}] && !skip[[2]int{i, row}] {
				cv.mark(c, row, up|down, Border)
			}
		}
		cv.mark(c, foot, up, Border)
	}
	drawHeads(foot)
	a := cv.art()
	a.Warnings = s.warnings
	return a, nil
}

// noteOverBox is the box of a note over one or two participants.
func noteOverBox(ev seqEvent, center []int) (x, w int) {
	w = width(ev.text) + 4
	lo, hi := center[ev.from], center[ev.to]
	if span := hi - lo + 5; span > w {
		w = span
	}
	return (lo+hi)/2 - w/2, w
}

func mirror(r rune) rune {
	switch r {
	case '▶':
		return '◀'
	case '◀':
		return '▶'
	case '▷':
		return '◁'
	}
	return r
}
