package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/relay-agent/relay/internal/llm"
)

// payload is the JSON request body (exactly llm.Marshal of the body),
// encoded once, one message at a time. A body of up to maxBuffered bytes
// is encoded whole and sent with its Content-Length. A longer one (a
// resumed never-compacted session sends tens of megabytes of messages) is
// streamed: the buffer holds its first maxBuffered bytes and the remaining
// messages are encoded while the transport sends them, without a length
// (chunked over HTTP/1.1, plain DATA frames over HTTP/2). Encoding it into
// one buffer cost that buffer plus the copies its growth left behind (~2.5
// times the body, the largest part of the peak memory of a resume), and
// counting its length first cost a second encoding of every message.
type payload struct {
	prefix [][]byte // the body up to message next (the whole body when size >= 0)
	next   int      // first message not in prefix
	tail   []byte   // from the messages' `]` on
	msgs   []message
	size   int64 // -1 when streamed
}

// maxBuffered is the body size up to which the payload is encoded into one
// buffer: every ordinary request, a full one-million-token context included.
const maxBuffered = 4 << 20

// prefixChunk is the size of the prefix's pieces: appended to, unlike one
// growing buffer, they allocate each byte once.
const prefixChunk = 64 << 10

// streamChunk is the size of the writes of a streamed body (WriteTo): large
// enough that the transport's chunk framing and system calls are few.
const streamChunk = 256 << 10

// messagesKey follows "model" (a string, so an unescaped quote ends it) in
// the body's field order: its first occurrence is the top-level key.
const messagesKey = `,"messages":[]`

func newPayload(b *body) (*payload, error) {
	return newPayloadLimit(b, maxBuffered)
}

// newPayloadLimit is newPayload buffering up to limit bytes.
func newPayloadLimit(b *body, limit int) (*payload, error) {
	if len(b.Messages) == 0 {
		whole, err := llm.Marshal(b)
		return &payload{prefix: [][]byte{whole}, size: int64(len(whole))}, err
	}
	msgs := b.Messages
	b.Messages = []message{}
	shell, err := llm.Marshal(b)
	b.Messages = msgs
	if err != nil {
		return nil, err
	}
	i := bytes.Index(shell, []byte(messagesKey))
	if i < 0 {
		return nil, errors.New("messages key not found in the encoded body")
	}
	cut := i + len(messagesKey) - 1
	p := &payload{tail: shell[cut:], msgs: msgs}
	p.appendPrefix(shell[:cut])
	e := newEncoder(msgs)
	for n := cut; p.next < len(msgs) && n < limit; p.next++ {
		e.buf.Reset()
		if err := e.encode(p.next); err != nil {
			return nil, err
		}
		p.appendPrefix(e.buf.Bytes())
		n += e.buf.Len()
	}
	p.size = -1
	if p.next == len(msgs) {
		p.appendPrefix(p.tail)
		p.size = 0
		for _, c := range p.prefix {
			p.size += int64(len(c))
		}
	}
	return p, nil
}

// appendPrefix appends b to the prefix's pieces.
func (p *payload) appendPrefix(b []byte) {
	for len(b) > 0 {
		last := len(p.prefix) - 1
		if last < 0 || len(p.prefix[last]) == cap(p.prefix[last]) {
			p.prefix = append(p.prefix, make([]byte, 0, prefixChunk))
			last++
		}
		c := p.prefix[last]
		k := min(len(b), cap(c)-len(c))
		p.prefix[last] = append(c, b[:k]...)
		b = b[k:]
	}
}

// body returns a fresh reader of the whole payload.
func (p *payload) body() io.ReadCloser {
	return &payloadReader{p: p, next: p.next, done: p.size >= 0}
}

// encoder appends messages to buf as llm.Marshal encodes them.
type encoder struct {
	msgs    []message
	buf     bytes.Buffer
	enc     *json.Encoder
	scratch bytes.Buffer // of appendMessage
}

func newEncoder(msgs []message) *encoder {
	e := &encoder{msgs: msgs}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode appends message i, after a comma unless it is the first.
func (e *encoder) encode(i int) error {
	if i > 0 {
		e.buf.WriteByte(',')
	}
	if b, ok := appendMessage(e.buf.AvailableBuffer(), &e.msgs[i], &e.scratch); ok {
		e.buf.Write(b)
		return nil
	}
	if err := e.enc.Encode(e.msgs[i]); err != nil {
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1) // Encode's newline
	return nil
}

// payloadReader reads the prefix, then encodes the remaining messages and
// the tail as they are read.
type payloadReader struct {
	p      *payload
	cur    []byte // bytes not yet read
	prefix int    // prefix pieces read
	next   int    // next message to encode
	e      *encoder
	done   bool // tail reached
}

// fill refills cur; false at the end of the body.
func (r *payloadReader) fill() (bool, error) {
	switch {
	case r.prefix < len(r.p.prefix):
		r.cur = r.p.prefix[r.prefix]
		r.prefix++
	case r.done:
		return false, nil
	case r.next < len(r.p.msgs):
		if r.e == nil {
			r.e = newEncoder(r.p.msgs)
		}
		r.e.buf.Reset()
		if err := r.e.encode(r.next); err != nil {
			return false, err
		}
		r.cur = r.e.buf.Bytes()
		r.next++
	default:
		r.cur, r.done = r.p.tail, true
	}
	return true, nil
}

// Read fills b (a read returning one message at a time made one system
// call of a few kilobytes per message).
func (r *payloadReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if len(r.cur) == 0 {
			more, err := r.fill()
			if err != nil {
				return n, err
			}
			if !more {
				if n == 0 {
					return 0, io.EOF
				}
				break
			}
		}
		c := copy(b[n:], r.cur)
		r.cur = r.cur[c:]
		n += c
	}
	return n, nil
}

// WriteTo writes the rest of the body in writes of about streamChunk bytes
// (io.Copy's 32 KB buffer made three system calls per 32 KB chunk).
func (r *payloadReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	write := func(b []byte) error {
		n, err := w.Write(b)
		total += int64(n)
		return err
	}
	if len(r.cur) > 0 {
		cur := r.cur
		r.cur = nil
		if err := write(cur); err != nil {
			return total, err
		}
	}
	for ; r.prefix < len(r.p.prefix); r.prefix++ {
		if err := write(r.p.prefix[r.prefix]); err != nil {
			r.prefix++
			return total, err
		}
	}
	if r.done {
		return total, nil
	}
	if r.e == nil {
		r.e = newEncoder(r.p.msgs)
	}
	r.e.buf.Reset()
	r.e.buf.Grow(2 * streamChunk) // a chunk and a message, without regrowing
	for ; r.next < len(r.p.msgs); r.next++ {
		if err := r.e.encode(r.next); err != nil {
			return total, err
		}
		if r.e.buf.Len() >= streamChunk {
			if err := write(r.e.buf.Bytes()); err != nil {
				r.next++
				return total, err
			}
			r.e.buf.Reset()
		}
	}
	r.e.buf.Write(r.p.tail)
	r.done = true
	err := write(r.e.buf.Bytes())
	r.e.buf.Reset()
	return total, err
}

func (r *payloadReader) Close() error { return nil }
