package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// payload is the JSON request body (exactly llm.Marshal of the body),
// encoded while the transport reads it: the body without its messages
// once, then one message at a time. A resumed never-compacted session sends
// tens of megabytes of messages; encoding them into one buffer cost that
// buffer plus the copies its growth left behind (~2.5 times the body, the
// largest part of the peak memory of a resume). A first pass counts the
// bytes so the request keeps its Content-Length.
type payload struct {
	head, tail []byte // up to and including `"messages":[`, and from its `]` on
	msgs       []message
	size       int64
}

// messagesKey follows "model" (a string, so an unescaped quote ends it) in
// the body's field order: its first occurrence is the top-level key.
const messagesKey = `,"messages":[]`

func newPayload(b *body) (*payload, error) {
	if len(b.Messages) == 0 {
		whole, err := llm.Marshal(b)
		return &payload{head: whole, size: int64(len(whole))}, err
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
	p := &payload{head: shell[:cut], tail: shell[cut:], msgs: msgs}
	n, err := p.count()
	if err != nil {
		return nil, err
	}
	p.size = int64(len(shell)) + n
	return p, nil
}

// count is the encoded size of the messages (with their commas), counted
// on every processor for a long conversation.
func (p *payload) count() (int64, error) {
	workers := 1
	if len(p.msgs) >= 512 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	sizes := make([]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.reader()
			for i := w; i < len(p.msgs); i += workers {
				n, err := r.encode(i)
				if err != nil {
					errs[w] = err
					return
				}
				sizes[w] += int64(n)
			}
		}()
	}
	wg.Wait()
	var total int64
	for w := range workers {
		if errs[w] != nil {
			return 0, errs[w]
		}
		total += sizes[w]
	}
	return total, nil
}

// body returns a fresh reader of the whole payload.
func (p *payload) body() io.ReadCloser { return p.reader() }

func (p *payload) reader() *payloadReader {
	r := &payloadReader{p: p, cur: p.head}
	r.enc = json.NewEncoder(&r.buf)
	r.enc.SetEscapeHTML(false)
	return r
}

type payloadReader struct {
	p    *payload
	next int // next message to encode
	cur  []byte
	buf  bytes.Buffer
	enc  *json.Encoder
	done bool
}

// encode encodes message i, after a comma unless it is the first, into buf
// and returns its length.
func (r *payloadReader) encode(i int) (int, error) {
	r.buf.Reset()
	if i > 0 {
		r.buf.WriteByte(',')
	}
	if err := r.enc.Encode(r.p.msgs[i]); err != nil {
		return 0, err
	}
	r.buf.Truncate(r.buf.Len() - 1) // Encode's newline
	return r.buf.Len(), nil
}

func (r *payloadReader) Read(b []byte) (int, error) {
	for len(r.cur) == 0 {
		switch {
		case r.done:
			return 0, io.EOF
		case r.next < len(r.p.msgs):
			if _, err := r.encode(r.next); err != nil {
				return 0, err
			}
			r.cur = r.buf.Bytes()
			r.next++
		default:
			r.cur, r.done = r.p.tail, true
		}
	}
	n := copy(b, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *payloadReader) Close() error { return nil }
