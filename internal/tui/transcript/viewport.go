package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// viewport is the fullscreen window onto the transcript. Its position is
// an anchor (block index, line within the block) rather than an absolute
// line, so nothing needs the height of every block; only blocks on screen
// (or scrolled past) are rendered.
type viewport struct {
	follow        bool // stick to the end, following new output
	anchor, off   int  // top row: item index and line within it (0 = separator)
	width, height int
	matches       []match
	current       int
	query         string
	// scroll caches Scroll's answer for an unchanged transcript and position.
	scrollKey [6]int
	scrollVal [3]int
}

type match struct{ item, line int }

// height is the rows an item takes: a separator plus its lines.
func (t *Transcript) height(i int) int {
	n := len(t.items[i].render(&t.ctx, t.vp.width))
	if n == 0 && t.items[i].kind == KindEntry {
		return 0 // an entry its renderer did not draw takes no room
	}
	return 1 + n
}

// row returns line k of item i (0 is the separator).
func (t *Transcript) row(i, k int) string {
	if k == 0 {
		return ""
	}
	return t.items[i].render(&t.ctx, t.vp.width)[k-1]
}

// View renders height rows of the transcript at width.
func (t *Transcript) View(width, height int) []string {
	vp := &t.vp
	if width != vp.width {
		vp.width = width
		vp.matches = nil
		if vp.query != "" {
			t.Search(vp.query)
		}
	}
	vp.height = height
	if len(t.items) == 0 || height <= 0 {
		return make([]string, max(0, height))
	}
	if vp.follow {
		t.anchorBottom()
	} else {
		vp.anchor = min(vp.anchor, len(t.items)-1)
		// Clamp: if the rest does not fill the screen, stick to the end.
		if t.rowsFrom(vp.anchor, vp.off, height) < height {
			t.anchorBottom()
			vp.follow = true
		}
	}
	out := make([]string, 0, height)
	i, k := vp.anchor, vp.off
	for len(out) < height && i < len(t.items) {
		h := t.height(i)
		for ; k < h && len(out) < height; k++ {
			out = append(out, t.decorate(i, k, t.row(i, k)))
		}
		i, k = i+1, 0
	}
	for len(out) < height {
		out = append(out, "")
	}
	t.evict()
	return out
}

// evictKeep is how many blocks around the view keep their rendered lines.
const evictKeep = 100

// evict frees the rendered lines of blocks far from the view once too
// many are cached, so memory stays bounded on long sessions; they render
// again if scrolled back into view.
func (t *Transcript) evict() {
	if t.ctx.cached <= 2*evictKeep {
		return
	}
	lo, hi := t.vp.anchor-evictKeep, t.vp.anchor+evictKeep
	for i, it := range t.items {
		if (i < lo || i > hi) && it.lines != nil {
			it.dropCache(&t.ctx)
		}
	}
}

// rowsFrom counts rows from (i, k), stopping once limit is reached.
func (t *Transcript) rowsFrom(i, k, limit int) int {
	n := 0
	for ; i < len(t.items) && n < limit; i++ {
		n += t.height(i) - k
		k = 0
	}
	return n
}

// anchorBottom places the anchor so the last row is at the bottom.
func (t *Transcript) anchorBottom() {
	vp := &t.vp
	need := vp.height
	i := len(t.items) - 1
	for ; i >= 0; i-- {
		h := t.height(i)
		if h >= need {
			vp.anchor, vp.off = i, h-need
			return
		}
		need -= h
	}
	vp.anchor, vp.off = 0, 0
}

// Following reports whether the view follows new output.
func (t *Transcript) Following() bool { return t.vp.follow }

// ScrollBy moves the view n rows (negative is up).
func (t *Transcript) ScrollBy(n int) {
	vp := &t.vp
	if len(t.items) == 0 || n == 0 {
		return
	}
	if vp.follow {
		t.anchorBottom()
		vp.follow = false
	}
	for n < 0 {
		if vp.off > 0 {
			step := min(vp.off, -n)
			vp.off -= step
			n += step
			continue
		}
		if vp.anchor == 0 {
			return
		}
		vp.anchor--
		vp.off = t.height(vp.anchor)
	}
	for n > 0 {
		h := t.height(vp.anchor)
		if vp.off+n < h {
			vp.off += n
			break
		}
		n -= h - vp.off
		if vp.anchor == len(t.items)-1 {
			vp.follow = true
			return
		}
		vp.anchor, vp.off = vp.anchor+1, 0
	}
	if t.rowsFrom(vp.anchor, vp.off, vp.height) < vp.height {
		vp.follow = true
	}
}

// PageUp, PageDown, HalfPageUp and HalfPageDown scroll by the view height.
func (t *Transcript) PageUp()       { t.ScrollBy(-max(1, t.vp.height-1)) }
func (t *Transcript) PageDown()     { t.ScrollBy(max(1, t.vp.height-1)) }
func (t *Transcript) HalfPageUp()   { t.ScrollBy(-max(1, t.vp.height/2)) }
func (t *Transcript) HalfPageDown() { t.ScrollBy(max(1, t.vp.height/2)) }

// Top scrolls to the beginning.
func (t *Transcript) Top() { t.vp.follow, t.vp.anchor, t.vp.off = false, 0, 0 }

// Bottom scrolls to the end and follows new output.
func (t *Transcript) Bottom() { t.vp.follow = true }

// PrevPrompt and NextPrompt jump between user prompts (the marked messages).
func (t *Transcript) PrevPrompt() {
	if t.vp.follow {
		t.anchorBottom()
	}
	start := t.vp.anchor
	if t.vp.off == 0 {
		start--
	}
	for i := start; i >= 0; i-- {
		if t.items[i].kind == KindUser {
			t.vp.follow, t.vp.anchor, t.vp.off = false, i, 0
			return
		}
	}
}

func (t *Transcript) NextPrompt() {
	if t.vp.follow {
		return
	}
	for i := t.vp.anchor + 1; i < len(t.items); i++ {
		if t.items[i].kind == KindUser {
			t.vp.anchor, t.vp.off = i, 0
			if t.rowsFrom(i, 0, t.vp.height) < t.vp.height {
				t.vp.follow = true
			}
			return
		}
	}
	t.vp.follow = true
}

// Scroll describes the position for a scrollbar: rows above the view,
// rows in it, and the (estimated) total. Blocks never rendered at this
// width count with the average height of those that were.
func (t *Transcript) Scroll() (above, visible, total int) {
	key := [6]int{t.ctx.gen, len(t.items), t.vp.anchor, t.vp.off, t.vp.width, t.vp.height}
	if key == t.vp.scrollKey {
		return t.vp.scrollVal[0], t.vp.scrollVal[1], t.vp.scrollVal[2]
	}
	defer func() {
		t.vp.scrollKey, t.vp.scrollVal = key, [3]int{above, visible, total}
	}()
	known, knownN := 0, 0
	for _, it := range t.items {
		if it.hw == t.vp.width {
			known += 1 + it.h
			knownN++
		}
	}
	avg := 3
	if knownN > 0 {
		avg = max(1, known/knownN)
	}
	h := func(i int) int {
		it := t.items[i]
		if it.hw == t.vp.width {
			return 1 + it.h
		}
		return avg
	}
	for i := 0; i < len(t.items); i++ {
		v := h(i)
		total += v
		if i < t.vp.anchor {
			above += v
		}
	}
	above += t.vp.off
	return above, t.vp.height, max(total, above+t.vp.height)
}

// Search finds query (case-insensitive) in the rendered transcript and
// selects the last match. It renders every block once at the current
// width; later searches reuse the cache.
func (t *Transcript) Search(query string) int {
	vp := &t.vp
	vp.query, vp.matches, vp.current = query, nil, -1
	if query == "" {
		return 0
	}
	q := strings.ToLower(query)
	for i := range t.items {
		// Only blocks whose text holds the query are rendered, so a first
		// search over a long session does not draw every block.
		if !strings.Contains(strings.ToLower(t.items[i].source()), q) {
			continue
		}
		for k, l := range t.items[i].render(&t.ctx, vp.width) {
			if strings.Contains(strings.ToLower(ansi.Strip(l)), q) {
				vp.matches = append(vp.matches, match{i, k + 1})
			}
		}
	}
	if len(vp.matches) > 0 {
		vp.current = len(vp.matches) - 1
		t.showMatch()
	}
	return len(vp.matches)
}

// SearchStatus is the current match (1-based) and the count.
func (t *Transcript) SearchStatus() (current, count int) {
	return t.vp.current + 1, len(t.vp.matches)
}

// NextMatch and PrevMatch cycle through matches.
func (t *Transcript) NextMatch() { t.stepMatch(1) }
func (t *Transcript) PrevMatch() { t.stepMatch(-1) }

func (t *Transcript) stepMatch(d int) {
	n := len(t.vp.matches)
	if n == 0 {
		return
	}
	t.vp.current = (t.vp.current + d + n) % n
	t.showMatch()
}

// CloseSearch clears the query and highlights.
func (t *Transcript) CloseSearch() { t.vp.query, t.vp.matches = "", nil }

func (t *Transcript) showMatch() {
	m := t.vp.matches[t.vp.current]
	t.vp.follow, t.vp.anchor, t.vp.off = false, m.item, m.line
	t.ScrollBy(-t.vp.height / 3)
	if t.vp.follow { // ScrollBy may re-enable follow near the end
		return
	}
}

// decorate highlights search matches on a row.
func (t *Transcript) decorate(i, k int, line string) string {
	vp := &t.vp
	if vp.query == "" || len(vp.matches) == 0 {
		return line
	}
	isMatch, isCurrent := false, false
	for j, m := range vp.matches {
		if m.item == i && m.line == k {
			isMatch, isCurrent = true, j == vp.current
			break
		}
	}
	if !isMatch {
		return line
	}
	plain := ansi.Strip(line)
	lower := strings.ToLower(plain)
	q := strings.ToLower(vp.query)
	var b strings.Builder
	for {
		idx := strings.Index(lower, q)
		if idx < 0 {
			b.WriteString(plain)
			break
		}
		b.WriteString(plain[:idx])
		hit := t.ctx.th.Bg("searchMatchBg", t.ctx.th.Fg("searchMatchText", plain[idx:idx+len(q)]))
		if isCurrent {
			hit = "\x1b[7m" + plain[idx:idx+len(q)] + "\x1b[27m"
		}
		b.WriteString(hit)
		plain, lower = plain[idx+len(q):], lower[idx+len(q):]
	}
	return b.String()
}
