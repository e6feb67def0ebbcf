package builtin

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/tool"
)

// grep holds at most grepChunk bytes of a file: a file that fits is read
// whole and searched in one pass; a larger one is searched a chunk of whole
// lines at a time. A line longer than the buffer is folded, as ripgrep
// bounds its line buffer: it is searched window by window as it streams
// past, and only its first foldHead bytes stay, enough for the
// 500-character output line. A 1 GiB one-line file costs one chunk, not
// 1 GiB. (A variable so tests can exercise chunking with small files.)
var grepChunk = 8 << 20

// foldHead is what stays of a folded line; foldOverlap is how much of one
// window is searched again at the start of the next, so a match of up to
// that many bytes across a window boundary is found.
func foldHead() int    { return min(16<<10, grepChunk/16) }
func foldOverlap() int { return min(64<<10, grepChunk/8) }

// minGrepBuffer keeps files that report size 0 (/proc) from being read a
// byte at a time.
const minGrepBuffer = 64 << 10

// fold is a folded line in the buffer: its first foldHead bytes stand for
// it at off; matched says whether the whole line matched.
type fold struct {
	off     int
	matched bool
}

// fileScan is the search of one file.
type fileScan struct {
	g    *grepRun
	rel  string
	f    rawFile
	size int64 // size when opened; reading stops there, as for a whole-file read
	read int64

	buf    []byte // buf[:n] is the text held; buf[0] starts a line
	n      int
	eof    bool
	binary bool
	folds  []fold

	lineAt  int // buffer offset up to which newlines were counted
	lineNo  int // line number at lineAt
	out     []string
	outSize int
	matches int // matches this file added to g.count
	stopped bool
}

// searchFile searches one file; it reports false when the match limit is
// reached. Files that are not regular (a FIFO swapped in), unreadable or
// binary (a NUL byte) are skipped.
func (g *grepRun) searchFile(abs, rel string) bool {
	if g.count.Load() >= int64(g.limit) || g.ctx.Err() != nil {
		return false
	}
	f, size, err := openRaw(abs)
	if err != nil {
		return true
	}
	defer f.Close()
	want := grepChunk
	if size+1 < int64(want) {
		want = max(int(size)+1, min(minGrepBuffer, grepChunk))
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	if cap(*bp) < want {
		*bp = make([]byte, want)
	}
	s := &fileScan{g: g, rel: rel, f: f, size: size, buf: (*bp)[:want], lineNo: 1}
	return s.run()
}

// fill reads until the buffer is full or the file ends, and notes a NUL in
// the new data.
func (s *fileScan) fill() {
	start := s.n
	for s.n < len(s.buf) && !s.eof {
		m, err := s.f.Read(s.buf[s.n:])
		s.n += m
		s.read += int64(m)
		if m == 0 || err != nil || s.size > 0 && s.read >= s.size {
			s.eof = true // end of file, or the size fstat reported was read
		}
	}
	if bytes.IndexByte(s.buf[start:s.n], 0) >= 0 {
		s.binary = true
	}
}

func (s *fileScan) run() bool {
	from := 0 // start of the lines not searched yet
	for {
		s.fill()
		if s.binary || s.stopped || s.g.ctx.Err() != nil {
			break
		}
		if s.eof {
			s.scanRegion(from, s.n, s.buf[:s.n])
			break
		}
		nl := bytes.LastIndexByte(s.buf[from:s.n], '\n')
		if nl < 0 {
			// the line at from does not fit in the buffer
			s.foldLine(from)
			continue
		}
		complete := from + nl + 1
		end := complete
		// keep the last lines for the after-context of the region's last
		// match; lines too long for that cut the after-context short
		for k := 0; k < s.g.context && end > from; k++ {
			end = from + bytes.LastIndexByte(s.buf[from:end-1], '\n') + 1
		}
		if end <= from {
			end = complete
		}
		s.scanRegion(from, end, s.buf[:complete-1])
		if s.stopped {
			break
		}
		from = s.compact(end)
	}
	return s.finish()
}

// compact drops the searched text before end but the lines the next
// region's before-context needs, and returns end's new offset.
func (s *fileScan) compact(end int) int {
	keep := end
	for k := 0; k < s.g.context && keep > 0; k++ {
		keep = bytes.LastIndexByte(s.buf[:keep-1], '\n') + 1
	}
	if end-keep > len(s.buf)/4 {
		keep = end // lines too long to carry: the before-context is cut short
	}
	if s.lineAt < keep {
		s.lineNo += bytes.Count(s.buf[s.lineAt:keep], []byte{'\n'})
		s.lineAt = keep
	}
	s.lineAt -= keep
	copy(s.buf, s.buf[keep:s.n])
	s.n -= keep
	kept := s.folds[:0]
	for _, f := range s.folds {
		if f.off >= keep {
			kept = append(kept, fold{f.off - keep, f.matched})
		}
	}
	s.folds = kept
	return end - keep
}

// foldLine searches the line starting at ls, which is longer than the
// buffer, window by window until its end, and leaves its first foldHead
// bytes in its place.
func (s *fileScan) foldLine(ls int) {
	head, overlap := foldHead(), foldOverlap()
	matched := false
	winStart, searchFrom := ls, ls
	for {
		end, last := s.n, s.eof
		if nl := bytes.IndexByte(s.buf[searchFrom:s.n], '\n'); nl >= 0 {
			end, last = searchFrom+nl, true
		}
		if !matched {
			winEnd := end
			if !last {
				winEnd = runeBoundary(s.buf[:end], winStart)
			}
			matched = s.g.matcher.windowMatches(s.buf[winStart:winEnd], winStart == ls, last)
		}
		if last {
			copy(s.buf[ls+head:], s.buf[end:s.n])
			s.n = ls + head + s.n - end
			s.folds = append(s.folds, fold{ls, matched})
			return
		}
		// keep the head and the end of this window, and read on
		keepFrom := max(s.n-overlap, ls+head)
		for keepFrom < s.n && !utf8.RuneStart(s.buf[keepFrom]) {
			keepFrom++
		}
		copy(s.buf[ls+head:], s.buf[keepFrom:s.n])
		s.n = ls + head + s.n - keepFrom
		winStart, searchFrom = ls+head, s.n
		s.fill()
		if s.binary || s.g.ctx.Err() != nil {
			return
		}
	}
}

// runeBoundary moves end back before a rune the buffer holds only part of
// (but not before start).
func runeBoundary(buf []byte, start int) int {
	end := len(buf)
	for i := end - 1; i >= start && i >= end-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:end]) {
				return i
			}
			break
		}
	}
	return end
}

func (s *fileScan) isFold(off int) bool {
	for _, f := range s.folds {
		if f.off == off {
			return true
		}
	}
	return false
}

// scanRegion reports the matching lines that start in [from, to); folded
// lines report the match their windows found. visible is the text context
// lines may come from.
func (s *fileScan) scanRegion(from, to int, visible []byte) {
	for _, f := range s.folds {
		if f.off < from || f.off >= to {
			continue
		}
		s.scanPiece(from, f.off, visible)
		if s.stopped || f.matched && !s.emit(f.off, min(f.off+foldHead(), s.n), visible) {
			return
		}
		from = f.off + foldHead() + 1
	}
	s.scanPiece(from, to, visible)
}

func (s *fileScan) scanPiece(from, to int, visible []byte) {
	if from >= to || s.stopped {
		return
	}
	s.g.matcher.scan(s.buf[:to], from, func(a, b int) bool { return s.emit(a, b, visible) })
}

// emit formats the match line [a, b), with its context.
func (s *fileScan) emit(a, b int, visible []byte) bool {
	g := s.g
	s.matches++
	if g.count.Add(1) > int64(g.limit) {
		s.stopped = true
		return false
	}
	if g.outBytes.Load() > tool.DefaultMaxBytes {
		return true // the output is full: count the match, skip formatting it
	}
	s.lineNo += bytes.Count(s.buf[s.lineAt:a], []byte{'\n'})
	s.lineAt = a
	n := len(s.out)
	if g.context == 0 {
		s.out = append(s.out, s.formatLine(s.lineNo, ':', a, b))
	} else {
		s.contextBlock(visible, a, b, s.lineNo)
	}
	size := 0
	for _, l := range s.out[n:] {
		size += len(l) + 1
	}
	s.outSize += size
	g.outBytes.Add(int64(size))
	return true
}

// formatLine formats the line [a, b) of the buffer, number n.
func (s *fileScan) formatLine(n int, sep byte, a, b int) string {
	text, cut := tool.TruncateLine(cleanLine(s.buf[a:b]), tool.GrepMaxLineLength)
	if !cut && s.isFold(a) {
		text, cut = text+"... [truncated]", true
	}
	if cut {
		s.g.truncLine.Store(true)
	}
	return s.rel + string(sep) + strconv.Itoa(n) + string(sep) + " " + text
}

// contextBlock formats the match line [a, b) (line number n) with up to
// g.context lines before and after it, as far as visible holds them.
func (s *fileScan) contextBlock(visible []byte, a, b, n int) {
	var before []int // starts of preceding lines, nearest first
	for p := a; len(before) < s.g.context && p > 0; {
		ls := bytes.LastIndexByte(visible[:p-1], '\n') + 1
		before = append(before, ls)
		p = ls
	}
	for i := len(before) - 1; i >= 0; i-- {
		ls := before[i]
		le := ls + bytes.IndexByte(visible[ls:], '\n')
		s.out = append(s.out, s.formatLine(n-i-1, '-', ls, le))
	}
	s.out = append(s.out, s.formatLine(n, ':', a, b))
	pos := b + 1
	for k := 1; k <= s.g.context && pos <= len(visible); k++ {
		le := bytes.IndexByte(visible[pos:], '\n')
		if le < 0 {
			le = len(visible)
		} else {
			le += pos
		}
		s.out = append(s.out, s.formatLine(n+k, '-', pos, le))
		pos = le + 1
	}
}

// finish hands the file's lines to the run; a file found binary part-way
// gives back the matches it counted.
func (s *fileScan) finish() bool {
	g := s.g
	if s.binary {
		g.count.Add(-int64(s.matches))
		g.outBytes.Add(-int64(s.outSize))
		return true
	}
	if len(s.out) > 0 {
		g.mu.Lock()
		g.files = append(g.files, grepFile{s.rel, s.out})
		g.mu.Unlock()
	}
	return g.count.Load() < int64(g.limit)
}
