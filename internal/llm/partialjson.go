package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// PartialJSON parses a JSON object that arrives in pieces (streamed
// tool-call arguments) incrementally: each Write costs time proportional to
// the new bytes only, never to what came before, so a 2 MB argument
// streamed in tiny deltas stays linear.
//
// Value returns a best-effort view of the object so far. It is one map that
// is updated in place by later Writes (the same map every time), holding
// every complete member plus the string currently being streamed, cut where
// the input stops; incomplete keys, numbers and literals are left out until
// they complete. Input that is not a JSON object, or turns malformed, stops
// the parse; what was built before stays.
//
// Raw returns all bytes written. Final returns the compact JSON to store as
// ToolCall.Arguments.
type PartialJSON struct {
	raw   strings.Builder
	root  map[string]any
	stack []pjFrame
	st    pjState
	bad   bool

	// the token being read
	key     []byte           // object key (raw, unescaped)
	str     *strings.Builder // string value being streamed
	strSlot pjSlot           // where str is stored
	tok     []byte           // number or literal
	esc     bool             // after a backslash
	uhex    []byte           // \u digits collected so far
	surr    rune             // pending high surrogate
	inKey   bool             // the string being read is a key
}

type pjState uint8

const (
	pjBegin    pjState = iota // before the root '{'
	pjValue                   // expecting a value
	pjKeyOrEnd                // after '{': a key or '}'
	pjKey                     // after ',' in an object: a key
	pjColon                   // after a key
	pjAfter                   // after a value: ',' or a closing bracket
	pjValOrEnd                // after '[': a value or ']'
	pjString                  // inside a string
	pjToken                   // inside a number or literal
	pjEnd                     // after the root object
)

type pjFrame struct {
	obj  map[string]any
	arr  []any
	slot pjSlot // where this container sits in its parent
	key  string // object: the key of the member being read
}

// pjSlot addresses a value inside its parent frame: an object key or an
// array index. parent -1 is "no parent" (the root).
type pjSlot struct {
	parent int
	key    string
	index  int
}

// Value returns the best-effort object parsed so far (never nil).
func (p *PartialJSON) Value() map[string]any {
	if p.root == nil {
		p.root = map[string]any{}
	}
	return p.root
}

// Complete reports whether the root object has been closed.
func (p *PartialJSON) Complete() bool { return p.st == pjEnd && !p.bad }

// Final returns the arguments as compact JSON: the input compacted when it
// is a valid object, else the best-effort object, "{}" when empty.
func (p *PartialJSON) Final() json.RawMessage {
	t := bytes.TrimSpace([]byte(p.raw.String()))
	if len(t) > 0 && t[0] == '{' {
		// Compact validates as it goes; on error the buffer is discarded.
		var buf bytes.Buffer
		buf.Grow(len(t))
		if json.Compact(&buf, t) == nil {
			return buf.Bytes()
		}
	}
	if p.st == pjToken {
		p.endToken()
	}
	b, err := Marshal(p.Value())
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// WriteString feeds the next piece of input and returns it as a substring
// of Raw (callers keep that instead of their own copy).
func (p *PartialJSON) WriteString(s string) string {
	n := p.raw.Len()
	reserve(&p.raw, len(s))
	p.raw.WriteString(s)
	return p.fed(n)
}

func (p *PartialJSON) fed(from int) string {
	s := p.raw.String()[from:]
	if p.bad || p.st == pjEnd {
		return s
	}
	p.feed(s)
	if p.str != nil && !p.inKey {
		p.set(p.strSlot, p.str.String())
	}
	return s
}

func (p *PartialJSON) fail() { p.bad = true }

func (p *PartialJSON) feed(s string) {
	for i := 0; i < len(s) && !p.bad; i++ {
		c := s[i]
		switch p.st {
		case pjString:
			if !p.esc && len(p.uhex) == 0 {
				// Fast path: copy the run up to the next quote or backslash.
				j := i
				for j < len(s) && s[j] != '"' && s[j] != '\\' {
					j++
				}
				if j > i {
					p.strAppend(s[i:j])
					i = j - 1
					continue
				}
			}
			p.stringByte(c)
		case pjToken:
			if isTokenByte(c) {
				p.tok = append(p.tok, c)
				continue
			}
			p.endToken()
			i-- // reprocess c in pjAfter
		default:
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			p.structural(c)
		}
	}
}

func isTokenByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

func (p *PartialJSON) structural(c byte) {
	switch p.st {
	case pjBegin:
		if c != '{' {
			p.fail()
			return
		}
		p.root = p.Value()
		p.stack = append(p.stack, pjFrame{obj: p.root, slot: pjSlot{parent: -1}})
		p.st = pjKeyOrEnd
	case pjKeyOrEnd, pjKey:
		switch {
		case c == '"':
			p.inKey = true
			p.key = p.key[:0]
			p.st = pjString
		case c == '}' && p.st == pjKeyOrEnd:
			p.closeContainer()
		default:
			p.fail()
		}
	case pjColon:
		if c != ':' {
			p.fail()
			return
		}
		p.st = pjValue
	case pjValue, pjValOrEnd:
		if c == ']' && p.st == pjValOrEnd {
			p.closeContainer()
			return
		}
		p.beginValue(c)
	case pjAfter:
		top := &p.stack[len(p.stack)-1]
		switch {
		case c == ',' && top.obj != nil:
			p.st = pjKey
		case c == ',':
			p.st = pjValue
		case c == '}' && top.obj != nil, c == ']' && top.obj == nil:
			p.closeContainer()
		default:
			p.fail()
		}
	default:
		p.fail()
	}
}

// slot returns where the next value of the top frame goes.
func (p *PartialJSON) slot() pjSlot {
	top := len(p.stack) - 1
	f := &p.stack[top]
	if f.obj != nil {
		return pjSlot{parent: top, key: f.key}
	}
	f.arr = append(f.arr, nil)
	p.writeBack(top)
	return pjSlot{parent: top, index: len(f.arr) - 1}
}

// writeBack stores frame i's array header in its parent after an append.
func (p *PartialJSON) writeBack(i int) {
	f := &p.stack[i]
	if f.obj == nil && f.slot.parent >= 0 {
		p.set(f.slot, f.arr)
	}
}

func (p *PartialJSON) set(s pjSlot, v any) {
	f := &p.stack[s.parent]
	if f.obj != nil {
		f.obj[s.key] = v
	} else {
		f.arr[s.index] = v
	}
}

func (p *PartialJSON) beginValue(c byte) {
	switch {
	case c == '"':
		p.inKey = false
		p.strSlot = p.slot()
		p.str = &strings.Builder{}
		p.set(p.strSlot, "")
		p.st = pjString
	case c == '{':
		s := p.slot()
		m := map[string]any{}
		p.set(s, m)
		p.stack = append(p.stack, pjFrame{obj: m, slot: s})
		p.st = pjKeyOrEnd
	case c == '[':
		s := p.slot()
		a := []any{}
		p.set(s, a)
		p.stack = append(p.stack, pjFrame{arr: a, slot: s})
		p.st = pjValOrEnd
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		p.tok = append(p.tok[:0], c)
		p.st = pjToken
	default:
		p.fail()
	}
}

func (p *PartialJSON) closeContainer() {
	p.stack = p.stack[:len(p.stack)-1]
	if len(p.stack) == 0 {
		p.st = pjEnd
		return
	}
	p.st = pjAfter
}

func (p *PartialJSON) endToken() {
	var v any
	t := string(p.tok)
	switch t {
	case "true":
		v = true
	case "false":
		v = false
	case "null":
		v = nil
	default:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			p.fail()
			return
		}
		v = f
	}
	p.set(p.slot(), v)
	p.st = pjAfter
}

func (p *PartialJSON) strAppend(s string) {
	if p.inKey {
		p.key = append(p.key, s...)
	} else {
		p.str.WriteString(s)
	}
}

func (p *PartialJSON) strByte(c byte) {
	if p.inKey {
		p.key = append(p.key, c)
	} else {
		p.str.WriteByte(c)
	}
}

func (p *PartialJSON) strRune(r rune) {
	var b [4]byte
	n := utf8.EncodeRune(b[:], r)
	p.strAppend(string(b[:n]))
}

func (p *PartialJSON) stringByte(c byte) {
	if len(p.uhex) > 0 {
		p.uhex = append(p.uhex, c)
		if len(p.uhex) < 5 { // 'u' + 4 digits
			return
		}
		n, err := strconv.ParseUint(string(p.uhex[1:]), 16, 32)
		p.uhex = p.uhex[:0]
		if err != nil {
			p.fail()
			return
		}
		r := rune(n)
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			if p.surr != 0 {
				p.strRune(utf8.RuneError)
			}
			p.surr = r
		case utf16.IsSurrogate(r) && p.surr != 0:
			p.strRune(utf16.DecodeRune(p.surr, r))
			p.surr = 0
		default:
			p.flushSurrogate()
			p.strRune(r)
		}
		return
	}
	if p.esc {
		p.esc = false
		if c == 'u' {
			p.uhex = append(p.uhex[:0], 'u')
			return
		}
		p.flushSurrogate()
		switch c {
		case 'n':
			p.strByte('\n')
		case 't':
			p.strByte('\t')
		case 'r':
			p.strByte('\r')
		case 'b':
			p.strByte('\b')
		case 'f':
			p.strByte('\f')
		case '"', '\\', '/':
			p.strByte(c)
		default:
			p.fail()
		}
		return
	}
	switch c {
	case '\\':
		p.esc = true
	case '"':
		p.flushSurrogate()
		if p.inKey {
			p.stack[len(p.stack)-1].key = string(p.key)
			p.st = pjColon
			return
		}
		p.set(p.strSlot, p.str.String())
		p.str = nil
		p.st = pjAfter
	default:
		p.strByte(c)
	}
}

func (p *PartialJSON) flushSurrogate() {
	if p.surr != 0 {
		p.surr = 0
		p.strRune(utf8.RuneError)
	}
}
