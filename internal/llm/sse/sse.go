// Package sse reads Server-Sent Events streams (the text/event-stream format
// of the WHATWG HTML spec) as the model APIs send them.
//
// Unlike bufio.Scanner based readers it has no line-length limit (a single
// data line may carry megabytes), accepts CRLF, CR and LF line endings,
// ignores comment lines, and joins multi-line data with "\n". It does no
// goroutine work of its own: Next blocks in the underlying Read, so a caller
// stops it by closing the body or cancelling the request context (net/http
// then fails the Read). Timeouts and size bounds are the caller's (relay's
// wire clients guard the body: see llm.Send).
package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync"
)

// Event is one dispatched server-sent event.
type Event struct {
	// Event is the "event:" field; empty means the default type "message".
	Event string
	// Data is the "data:" lines joined with "\n".
	Data string
	// ID is the last event id seen so far in the stream (it persists across
	// events as the spec says).
	ID string
	// Retry is the reconnection time in milliseconds from a "retry:" field
	// of this event, or -1 when the event carried none.
	Retry int
}

// Reader decodes events from an io.Reader. It is not safe for concurrent use.
type Reader struct {
	r       io.Reader
	buf     []byte
	start   int // first unread byte of buf
	end     int // end of valid bytes in buf
	err     error
	skipLF  bool // the previous line ended in CR; a following LF belongs to it
	noCR    int  // buf[start:noCR] holds no CR (see firstCR)
	bomDone bool

	// data is the event's data: while the event has a single data line it
	// aliases that line in buf (aliased), else it is own. fill copies an
	// aliased line to own before it moves buf's bytes.
	data    []byte
	own     []byte
	aliased bool
	hasData bool
	event   []byte
	lastID  string
	retry   int

	lastEvent string
	pending   bool // NextRaw returned the current fields; reset before reading
}

const (
	initialBuf = 16 << 10
	maxRead    = 16 << 10 // most bytes a fill asks its source for
	// maxPooled is the largest read buffer Release keeps for the next
	// reader; larger ones (a single line of many megabytes) go to the GC.
	maxPooled = 16 << 20
)

// bufPool holds the read buffers of released readers. A long answer
// repeats its text in a few final events, so a reader's buffer grows to
// megabytes on every stream; reusing it saves allocating and faulting in
// that memory each time.
var bufPool sync.Pool // of *[]byte

// errReleased is returned by a reader used after Release.
var errReleased = errors.New("sse: reader used after Release")

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, retry: -1}
}

// Next returns the next event. At the end of the stream it returns io.EOF
// (an event whose final blank line never arrived is still dispatched when
// its last line was complete; a line cut in the middle is dropped, since it
// is most likely a truncated payload). Read errors are returned as they are.
func (r *Reader) Next() (Event, error) {
	if err := r.next(); err != nil {
		return Event{}, err
	}
	ev := Event{Event: r.eventName(), Data: string(r.data), ID: r.lastID, Retry: r.retry}
	r.reset()
	return ev, nil
}

// Release ends the use of r: its buffers go back to a pool for the next
// reader, and data handed out by NextRaw is no longer valid. Further calls
// of Next or NextRaw fail. Calling it is optional (without it the GC frees
// the buffers) and it is idempotent.
func (r *Reader) Release() {
	if r.buf != nil && cap(r.buf) <= maxPooled {
		b := r.buf[:cap(r.buf)]
		bufPool.Put(&b)
	}
	r.buf, r.start, r.end, r.noCR = nil, 0, 0, 0
	r.data, r.own, r.aliased, r.hasData = nil, nil, false, false
	r.err, r.bomDone = errReleased, true
}

// NextRaw is Next without copying the data: data is valid only until the
// following call. Hot loops use it to decode events straight from the
// reader's buffer.
func (r *Reader) NextRaw() (event string, data []byte, err error) {
	if r.pending {
		r.reset()
	}
	if err := r.next(); err != nil {
		return "", nil, err
	}
	r.pending = true
	return r.eventName(), r.data, nil
}

// next reads up to the end of the next event to dispatch, leaving its
// fields in r.
func (r *Reader) next() error {
	for {
		line, terminated, err := r.readLine()
		if err != nil {
			if err == io.EOF && r.hasData {
				return nil
			}
			r.reset()
			return err
		}
		if !terminated {
			// Final line without a line ending: the stream was cut inside
			// it. Drop it and whatever event it belonged to.
			r.reset()
			if r.err == nil {
				r.err = io.EOF
			}
			return r.err
		}
		if len(line) == 0 {
			if !r.hasData {
				// Spec: an event without data is not dispatched.
				r.event = r.event[:0]
				r.retry = -1
				continue
			}
			return nil
		}
		r.field(line)
	}
}

func (r *Reader) reset() {
	r.pending = false
	r.data, r.own, r.aliased = nil, r.own[:0], false
	r.hasData = false
	r.event = r.event[:0]
	r.retry = -1
}

// eventName returns the event type; names repeat, so the previous string
// is reused instead of allocating.
func (r *Reader) eventName() string {
	if string(r.event) != r.lastEvent {
		r.lastEvent = string(r.event)
	}
	return r.lastEvent
}

// field processes one non-empty line.
func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if len(line) >= 5 && string(line[:5]) == "data:" {
		// The usual fields need no search for the colon.
		name, value = line[:4], line[5:]
	} else if len(line) >= 6 && string(line[:6]) == "event:" {
		name, value = line[:5], line[6:]
	} else if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
	}
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "data":
		if !r.hasData {
			// Most events have one data line: it is handed out from buf,
			// not copied.
			r.data, r.aliased, r.hasData = value, true, true
			return
		}
		r.unalias()
		r.own = append(r.own, '\n')
		r.own = append(r.own, value...)
		r.data = r.own
	case "event":
		r.event = append(r.event[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.lastID = string(value)
		}
	case "retry":
		if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
			r.retry = n
		}
	}
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call. terminated is false for a final line that ended at EOF
// without a line ending. err is io.EOF (or the read error) when no bytes are
// left.
func (r *Reader) readLine() (line []byte, terminated bool, err error) {
	if !r.bomDone {
		// A UTF-8 byte order mark at the start of the stream is skipped.
		for r.end-r.start < 3 && r.err == nil {
			r.fill()
		}
		if r.end-r.start >= 3 && string(r.buf[r.start:r.start+3]) == "\xEF\xBB\xBF" {
			r.start += 3
		}
		r.bomDone = true
	}
	scanned := 0 // bytes of buf[start:end] known to hold no line ending
	for {
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++
			}
			r.skipLF = false
		}
		from, eol := r.start+scanned, r.end
		if i := bytes.IndexByte(r.buf[from:r.end], '\n'); i >= 0 {
			eol = from + i
		}
		if cr := r.firstCR(from, eol); cr >= 0 {
			eol = cr
		}
		if eol < r.end {
			i := eol
			line = r.buf[r.start:i]
			if r.buf[i] == '\r' {
				if i+1 < r.end {
					if r.buf[i+1] == '\n' {
						i++
					}
				} else {
					r.skipLF = true
				}
			}
			r.start = i + 1
			return line, true, nil
		}
		scanned = r.end - r.start
		if r.err != nil {
			if r.start < r.end {
				line = r.buf[r.start:r.end]
				r.start = r.end
				return line, false, nil
			}
			return nil, false, r.err
		}
		r.fill()
	}
}

// unalias copies data that aliases buf into own storage.
func (r *Reader) unalias() {
	if r.aliased {
		r.own = append(r.own[:0], r.data...)
		r.data, r.aliased = r.own, false
	}
}

// fill reads more bytes, compacting or growing the buffer as needed.
func (r *Reader) fill() {
	r.unalias() // buf's bytes are about to move
	if r.buf == nil {
		if r.err == errReleased {
			return
		}
		if b, ok := bufPool.Get().(*[]byte); ok {
			r.buf = *b
		} else {
			r.buf = make([]byte, initialBuf)
		}
	}
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.noCR = max(0, r.noCR-r.start)
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	// Reads stay small even in a buffer grown for a long line, so the
	// bytes are still in the cache when they are scanned.
	limit := min(len(r.buf), r.end+maxRead)
	for tries := 0; tries < 100; tries++ {
		n, err := r.r.Read(r.buf[r.end:limit])
		r.end += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// firstCR returns the index in buf of the first CR in buf[from:limit], or
// -1. Streams rarely use CRs, so instead of looking for one in every line
// it remembers how far buf is known to hold none (noCR) and looks again
// only past that.
func (r *Reader) firstCR(from, limit int) int {
	if r.noCR < from {
		// buf[start:from] holds no line ending at all.
		r.noCR = from
	}
	if r.noCR >= limit {
		return -1
	}
	if r.buf[r.noCR] != '\r' {
		j := bytes.IndexByte(r.buf[r.noCR:r.end], '\r')
		if j < 0 {
			r.noCR = r.end
			return -1
		}
		r.noCR += j
	}
	if r.noCR >= limit {
		return -1
	}
	return r.noCR
}
