package mermaid

import (
	"fmt"
	"sort"
)

// seg is one hop of an edge between adjacent ranks (long edges pass
// through dummy nodes).
type seg struct {
	upper, lower int  // node indexes; rank(lower) = rank(upper)+1
	up           bool // the edge points toward the upper rank
	arrow        bool // this hop ends at the edge's target
	edge         int
}

func renderFlowchart(src string) (*Art, error) {
	f, err := parseFlowchart(src)
	if err != nil {
		return nil, err
	}
	l := &flowLayout{f: f, lr: f.dir == "LR" || f.dir == "RL"}
	if err := l.layout(); err != nil {
		return nil, err
	}
	a := l.draw()
	a.Warnings = f.warnings
	return a, nil
}

type flowLayout struct {
	f     *flowchart
	lr    bool
	ranks [][]int // node indexes by rank, in order
	segs  []seg
	// rank-axis geometry
	bandStart, bandSize []int
	chanStart           []int // channel after rank r
	ch                  []channel
}

type channel struct {
	upArrow, labelUp, tracks, labelDown int
	lead, tail                          int // extra room around the tracks
	size                                int
	track                               map[int]int // seg index -> track
}

func (l *flowLayout) layout() error {
	f := l.f
	n := len(f.nodes)
	// Self-loops are not drawn.
	var edges []fedge
	for _, e := range f.edges {
		if e.from == e.to {
			f.warnings = append(f.warnings, fmt.Sprintf("self-loop on %q not drawn", f.nodes[e.from].id))
			continue
		}
		edges = append(edges, e)
	}
	f.edges = edges
	// Break cycles: edges that close a cycle in a depth-first walk in
	// declaration order are ranked reversed.
	adj := make([][]int, n)
	for i, e := range f.edges {
		adj[e.from] = append(adj[e.from], i)
	}
	rev := make([]bool, len(f.edges))
	state := make([]uint8, n) // 0 new, 1 on stack, 2 done
	var visit func(v int)
	visit = func(v int) {
		state[v] = 1
		for _, ei := range adj[v] {
			w := f.edges[ei].to
			switch state[w] {
			case 0:
				visit(w)
			case 1:
				rev[ei] = true
			}
		}
		state[v] = 2
	}
	for v := 0; v < n; v++ {
		if state[v] == 0 {
			visit(v)
		}
	}
	// Longest-path ranking on the acyclic edges.
	rank := make([]int, n)
	indeg := make([]int, n)
	out := make([][]int, n)
	for i, e := range f.edges {
		a, b := e.from, e.to
		if rev[i] {
			a, b = b, a
		}
		out[a] = append(out[a], b)
		indeg[b]++
	}
	var queue []int
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range out[v] {
			rank[w] = max(rank[w], rank[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	maxRank := 0
	for _, r := range rank {
		maxRank = max(maxRank, r)
	}
	if f.dir == "BT" || f.dir == "RL" {
		for v := range rank {
			rank[v] = maxRank - rank[v]
		}
	}
	for v := range f.nodes {
		f.nodes[v].rank = rank[v]
	}
	// Hops, with dummy nodes on long edges.
	for i, e := range f.edges {
		u, w := e.from, e.to
		up := rank[u] > rank[w]
		if up {
			u, w = w, u
		}
		chain := []int{u}
		for r := rank[u] + 1; r < rank[w]; r++ {
			f.nodes = append(f.nodes, &fnode{dummy: true, rank: r, style: e.style})
			chain = append(chain, len(f.nodes)-1)
		}
		chain = append(chain, w)
		for k := 1; k < len(chain); k++ {
			s := seg{upper: chain[k-1], lower: chain[k], up: up, edge: i}
			s.arrow = (!up && k == len(chain)-1) || (up && k == 1)
			l.segs = append(l.segs, s)
		}
		if up != l.mainUp() {
			f.nodes[u].minority, f.nodes[w].minority = true, true
		}
		if lw := width(e.label); lw > 0 {
			t := f.nodes[e.to]
			t.inLabel = max(t.inLabel, lw)
		}
	}
	if len(f.nodes) > 4*maxNodes {
		return fmt.Errorf("too many crossings of ranks")
	}
	l.order(maxRank)
	l.sizes()
	l.place()
	l.channels()
	total := 0
	for v := range f.nodes {
		total = max(total, f.nodes[v].pos+f.nodes[v].osize)
	}
	if r := len(l.bandStart) - 1; r >= 0 && total*(l.bandStart[r]+l.bandSize[r]) > maxCanvas {
		return fmt.Errorf("diagram too large to draw")
	}
	return nil
}

// order places nodes within ranks: first appearance, then barycentre
// sweeps.
func (l *flowLayout) order(maxRank int) {
	f := l.f
	l.ranks = make([][]int, maxRank+1)
	for v, nd := range f.nodes {
		l.ranks[nd.rank] = append(l.ranks[nd.rank], v)
	}
	upN := make([][]int, len(f.nodes))
	downN := make([][]int, len(f.nodes))
	for _, s := range l.segs {
		downN[s.upper] = append(downN[s.upper], s.lower)
		upN[s.lower] = append(upN[s.lower], s.upper)
	}
	setOrder := func(r int) {
		for i, v := range l.ranks[r] {
			f.nodes[v].order = i
		}
	}
	for r := range l.ranks {
		setOrder(r)
	}
	sweep := func(r int, nb [][]int) {
		bary := map[int]float64{}
		for _, v := range l.ranks[r] {
			if len(nb[v]) == 0 {
				bary[v] = float64(f.nodes[v].order)
				continue
			}
			sum := 0.0
			for _, w := range nb[v] {
				sum += float64(f.nodes[w].order)
			}
			bary[v] = sum / float64(len(nb[v]))
		}
		sort.SliceStable(l.ranks[r], func(i, j int) bool { return bary[l.ranks[r][i]] < bary[l.ranks[r][j]] })
		setOrder(r)
	}
	for it := 0; it < 4; it++ {
		for r := 1; r <= maxRank; r++ {
			sweep(r, upN)
		}
		for r := maxRank - 1; r >= 0; r-- {
			sweep(r, downN)
		}
	}
}

func (l *flowLayout) sizes() {
	for _, nd := range l.f.nodes {
		if nd.dummy {
			nd.osize, nd.rsize = 1, 1
			continue
		}
		w, h := nd.box()
		if l.lr {
			nd.osize, nd.rsize = h, w
		} else {
			// Room right of the arrow for the label of an arriving edge.
			nd.osize, nd.rsize = max(w, 2*(nd.inLabel+1)+1), h
		}
	}
}

// box is a node's box size; a node where a hop against the flow
// attaches is at least 9 wide, so that hop has its own column.
func (nd *fnode) box() (w, h int) {
	w, h = boxSize(nd.lines)
	if nd.minority {
		w = max(w, 9)
	}
	return w, h
}

func boxSize(lines []string) (w, h int) {
	for _, s := range lines {
		w = max(w, width(s))
	}
	return w + 4, len(lines) + 2
}

// center is where edges attach on the order axis.
func (nd *fnode) center() int { return nd.pos + nd.osize/2 }

// place assigns order-axis positions: packed, then pulled toward the
// neighbours in the rank above and below.
func (l *flowLayout) place() {
	f := l.f
	gap := 3
	if l.lr {
		gap = 1
	}
	upN := make([][]int, len(f.nodes))
	downN := make([][]int, len(f.nodes))
	for _, s := range l.segs {
		if s.up != l.mainUp() {
			continue // an edge closing a cycle does not pull its ends
		}
		downN[s.upper] = append(downN[s.upper], s.lower)
		upN[s.lower] = append(upN[s.lower], s.upper)
	}
	pack := func(r int, want map[int]int) {
		next := 0
		for _, v := range l.ranks[r] {
			nd := f.nodes[v]
			p, ok := want[v]
			if !ok {
				p = nd.pos
			}
			nd.pos = max(p, next)
			next = nd.pos + nd.osize + gap
		}
	}
	for r := range l.ranks {
		pack(r, map[int]int{})
	}
	pull := func(r int, nb [][]int) {
		want := map[int]int{}
		for _, v := range l.ranks[r] {
			if len(nb[v]) == 0 {
				continue
			}
			sum := 0
			for _, w := range nb[v] {
				sum += f.nodes[w].center()
			}
			want[v] = max(0, sum/len(nb[v])-f.nodes[v].osize/2)
		}
		pack(r, want)
	}
	for it := 0; it < 3; it++ {
		for r := 1; r < len(l.ranks); r++ {
			pull(r, upN)
		}
		for r := len(l.ranks) - 2; r >= 0; r-- {
			pull(r, downN)
		}
	}
	for r := 1; r < len(l.ranks); r++ {
		pull(r, upN)
	}
	for r := len(l.ranks) - 2; r >= 0; r-- {
		pull(r, downN)
	}
	low := -1
	for _, nd := range f.nodes {
		if low < 0 || nd.pos < low {
			low = nd.pos
		}
	}
	for _, nd := range f.nodes {
		nd.pos -= low
	}
}

// attach is the order-axis position where hop s meets node v. Hops that
// run against the diagram's flow attach off-centre when the box is wide
// enough, so their arrowheads do not sit on the flow's own stubs.
func (l *flowLayout) attach(s seg, v int) int {
	nd := l.f.nodes[v]
	c := nd.center()
	if nd.dummy || l.lr {
		return c
	}
	if s.up != l.mainUp() {
		w, _ := nd.box()
		if left := c - w/2; c+2 <= left+w-3 {
			return c + 2
		}
	}
	return c
}

// channels sizes the gaps between ranks and assigns each hop a track.
func (l *flowLayout) channels() {
	f := l.f
	nr := len(l.ranks)
	l.bandSize = make([]int, nr)
	l.bandStart = make([]int, nr)
	l.chanStart = make([]int, nr)
	l.ch = make([]channel, nr)
	for r, vs := range l.ranks {
		l.bandSize[r] = 1
		for _, v := range vs {
			if !f.nodes[v].dummy {
				l.bandSize[r] = max(l.bandSize[r], f.nodes[v].rsize)
			}
		}
	}
	byRank := make([][]int, nr)
	for i, s := range l.segs {
		byRank[f.nodes[s.upper].rank] = append(byRank[f.nodes[s.upper].rank], i)
	}
	for r := 0; r < nr; r++ {
		c := channel{track: map[int]int{}}
		// Hops leaving the same point share a track (one bus splits).
		type group struct {
			lo, hi int
			segs   []int
		}
		groups := map[[2]int]*group{}
		var keys [][2]int
		for _, i := range byRank[r] {
			s := l.segs[i]
			tail, tip := s.upper, s.lower
			if s.up {
				tail, tip = s.lower, s.upper
			}
			k := [2]int{tail, l.attach(s, tail)}
			g := groups[k]
			if g == nil {
				g = &group{lo: k[1], hi: k[1]}
				groups[k] = g
				keys = append(keys, k)
			}
			t := l.attach(s, tip)
			g.lo, g.hi = min(g.lo, t), max(g.hi, t)
			g.segs = append(g.segs, i)
			lw := width(f.edges[s.edge].label)
			if s.arrow && s.up {
				c.upArrow = 1
			}
			if l.lr && s.arrow && lw > 0 {
				if s.up {
					c.labelUp = max(c.labelUp, lw+2)
				} else {
					c.labelDown = max(c.labelDown, lw+2)
				}
			}
		}
		sort.Slice(keys, func(i, j int) bool { return groups[keys[i]].lo < groups[keys[j]].lo })
		var trackEnd []int
		tips := map[[2]int]bool{} // (track, position) where hops end
		for _, k := range keys {
			g := groups[k]
			t := -1
			if g.lo != g.hi {
				for ti, end := range trackEnd {
					// Buses may touch where both end at the same
					// point: they merge into one arrow.
					if end+1 < g.lo || end == g.lo && tips[[2]int{ti, end}] && g.lo != k[1] {
						t = ti
						break
					}
				}
				if t < 0 {
					trackEnd = append(trackEnd, 0)
					t = len(trackEnd) - 1
				}
				trackEnd[t] = g.hi
				for _, i := range g.segs {
					s := l.segs[i]
					tip := s.lower
					if s.up {
						tip = s.upper
					}
					tips[[2]int{t, l.attach(s, tip)}] = true
				}
			}
			for _, i := range g.segs {
				c.track[i] = max(0, t)
			}
		}
		c.tracks = max(1, len(trackEnd))
		if l.lr {
			// Sideways, one cell before the tracks and two before the
			// arrow keep a bus readable.
			c.lead, c.tail = 1, 2
		}
		c.size = c.upArrow + c.labelUp + c.lead + c.tracks + c.tail + c.labelDown + 1
		l.ch[r] = c
	}
	a := 0
	for r := 0; r < nr; r++ {
		l.bandStart[r] = a
		l.chanStart[r] = a + l.bandSize[r]
		a = l.chanStart[r] + l.ch[r].size
	}
}

// mainUp reports whether the diagram flows toward lower ranks (BT and
// RL are laid out as TD and LR with the ranks reversed).
func (l *flowLayout) mainUp() bool { return l.f.dir == "BT" || l.f.dir == "RL" }

// xy maps abstract (rank axis, order axis) coordinates to the canvas.
func (l *flowLayout) xy(a, o int) (int, int) {
	if l.lr {
		return a, o
	}
	return o, a
}

func (l *flowLayout) draw() *Art {
	f := l.f
	cv := &canvas{}
	pt := func(a, o int) [2]int {
		x, y := l.xy(a, o)
		return [2]int{x, y}
	}
	// far is the last rank-axis cell of a node (its bottom or right edge).
	far := func(v int) int {
		nd := f.nodes[v]
		if nd.dummy {
			return l.bandStart[nd.rank] + l.bandSize[nd.rank] - 1
		}
		return l.bandStart[nd.rank] + nd.rsize - 1
	}
	near := func(v int) int { return l.bandStart[f.nodes[v].rank] }
	type mark struct {
		a, o  int
		r     rune
		label string
		up    bool
	}
	var marks []mark
	for i, s := range l.segs {
		e := f.edges[s.edge]
		r := f.nodes[s.upper].rank
		c := l.ch[r]
		trackA := l.chanStart[r] + c.upArrow + c.labelUp + c.lead + c.track[i]
		oU, oL := l.attach(s, s.upper), l.attach(s, s.lower)
		label := ""
		if s.arrow {
			label = e.label
		}
		if !s.up {
			end := near(s.lower)
			if s.arrow && e.head != headNone {
				end = near(s.lower) - 1
				marks = append(marks, mark{a: end, o: oL, r: headRune(e.head, l.lr, false), label: label})
			} else if label != "" {
				marks = append(marks, mark{a: near(s.lower) - 1, o: oL, label: label})
			}
			cv.path([][2]int{pt(far(s.upper), oU), pt(trackA, oU), pt(trackA, oL), pt(end, oL)}, e.style, Edge)
		} else {
			end := far(s.upper)
			if s.arrow && e.head != headNone {
				end = far(s.upper) + 1
				marks = append(marks, mark{a: end, o: oU, r: headRune(e.head, l.lr, true), label: label, up: true})
			} else if label != "" {
				marks = append(marks, mark{a: far(s.upper) + 1, o: oU, label: label, up: true})
			}
			cv.path([][2]int{pt(near(s.lower), oL), pt(trackA, oL), pt(trackA, oU), pt(end, oU)}, e.style, Edge)
		}
	}
	for v, nd := range f.nodes {
		if nd.dummy {
			p := pt(near(v), nd.pos)
			q := pt(far(v), nd.pos)
			cv.line(p[0], p[1], q[0], q[1], nd.style, Edge)
			continue
		}
		w, h := nd.box()
		var x, y int
		if l.lr {
			x, y = near(v), nd.pos+(nd.osize-h)/2
		} else {
			x, y = nd.center()-w/2, near(v)
		}
		cv.box(x, y, w, h, nd.round, Border)
		for i, line := range nd.lines {
			cv.text(x+2+(w-4-width(line))/2, y+1+i, line, Text)
		}
	}
	for _, m := range marks {
		if m.r != 0 {
			x, y := l.xy(m.a, m.o)
			cv.put(x, y, m.r, Edge)
		}
		if m.label == "" {
			continue
		}
		if !l.lr {
			x, y := l.xy(m.a, m.o+1)
			cv.text(x, y, m.label, EdgeLabel)
			continue
		}
		// Left to right: the label sits on the line before the arrow.
		if m.up {
			cv.text(m.a+2, m.o, m.label, EdgeLabel)
		} else {
			cv.text(m.a-1-width(m.label), m.o, m.label, EdgeLabel)
		}
	}
	return cv.art()
}

func headRune(h head, lr, up bool) rune {
	switch h {
	case headCircle:
		return '○'
	case headCross:
		return '×'
	}
	switch {
	case lr && up:
		return '◀'
	case lr:
		return '▶'
	case up:
		return '▲'
	}
	return '▼'
}
