package llm

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// fastDecode switches the single-pass decoder on. Only the differential
// tests turn it off, to get the encoding/json reference values.
var fastDecode = true

// msgDecoder is a single-pass decoder for the message vocabulary. The
// encoding/json path scans a message once per nesting level of custom
// unmarshalers (validate, decode, then again for every content block);
// this reads each byte once.
//
// It only has to be right for what it accepts: every method reports false
// for anything it does not handle exactly as encoding/json would (a
// duplicate or case-folded key, an escaped key, a number where a string
// is declared, a fractional integer, too deep nesting, malformed input...),
// and the caller then decodes the whole value again with encoding/json,
// which produces the value or the error. For what it accepts it yields the
// values encoding/json yields: strings unescaped the same way (invalid
// UTF-8 and lone surrogates become U+FFFD), raw members copied byte for
// byte, nulls treated as encoding/json treats them per field type.
type msgDecoder struct {
	b     []byte
	i     int
	depth int
	buf   []byte // scratch for unescaping
	// shared: b is never modified and outlives the decoded values, so a
	// string without escapes may be a view of it (DecodeMessageShared).
	shared bool
}

// maxSkipDepth bounds the nesting of raw values we validate ourselves;
// deeper ones go to encoding/json (which allows 10000).
const maxSkipDepth = 500

func (d *msgDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *msgDecoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// end reports whether only whitespace is left.
func (d *msgDecoder) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// object reads an object, calling fn with each raw key (keys with escapes
// are refused); fn must consume the value.
func (d *msgDecoder) object(fn func(key []byte) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		if d.peek() != '"' {
			return false
		}
		k, ok := d.key()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		d.ws()
		if !fn(k) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling fn for each element. It reports false for
// null too: callers handle null themselves.
func (d *msgDecoder) array(fn func() bool) bool {
	if d.peek() != '[' {
		return false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return true
	}
	for {
		d.ws()
		if !fn() {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}

// key reads a member name without escapes or control characters and
// returns it as a subslice of the input.
func (d *msgDecoder) key() ([]byte, bool) {
	s := d.i + 1
	for j := s; j < len(d.b); j++ {
		c := d.b[j]
		if c == '"' {
			d.i = j + 1
			return d.b[s:j], true
		}
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return nil, false
}

// null consumes a null literal and reports whether there was one.
func (d *msgDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

func (d *msgDecoder) boolean() (bool, bool) {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true" {
		d.i += 4
		return true, true
	}
	if len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false" {
		d.i += 5
		return false, true
	}
	return false, false
}

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// asciiText reports whether b has only bytes 0x20..0x7f, sixteen at a
// time: subtracting 0x20 from every byte borrows into a high bit exactly
// when some byte is below 0x20.
func asciiText(b []byte) bool {
	i := 0
	for ; i+16 <= len(b); i += 16 {
		w1 := binary.LittleEndian.Uint64(b[i:])
		w2 := binary.LittleEndian.Uint64(b[i+8:])
		if ((w1-swarLo*0x20)|w1|(w2-swarLo*0x20)|w2)&swarHi != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] >= 0x80 {
			return false
		}
	}
	return true
}

// hasControl reports whether b has a byte below 0x20.
func hasControl(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if (w-swarLo*0x20)&^w&swarHi != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

// str reads a string value and returns a new string, unescaped exactly as
// encoding/json does it.
func (d *msgDecoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	s := d.i + 1
	q := bytes.IndexByte(d.b[s:], '"')
	if q < 0 {
		return "", false
	}
	seg := d.b[s : s+q]
	if bytes.IndexByte(seg, '\\') < 0 && (asciiText(seg) || !hasControl(seg) && utf8.Valid(seg)) {
		d.i = s + q + 1
		if d.shared {
			return bytesString(seg), true
		}
		return string(seg), true
	}
	return d.unquote(s)
}

// unquote decodes a string from s (after its opening quote): runs between
// escapes are copied whole.
func (d *msgDecoder) unquote(s int) (string, bool) {
	b := d.buf[:0]
	i := s
	q := -1 // the next quote at or after i
	for {
		if q < i {
			k := bytes.IndexByte(d.b[i:], '"')
			if k < 0 {
				return "", false
			}
			q = i + k
		}
		run := d.b[i:q]
		if k := bytes.IndexByte(run, '\\'); k >= 0 {
			run = run[:k]
		}
		if asciiText(run) {
			b = append(b, run...)
		} else {
			var ok bool
			if b, ok = appendText(b, run); !ok {
				return "", false
			}
		}
		i += len(run)
		if i == q {
			d.i = q + 1
			d.buf = b
			return string(b), true
		}
		// d.b[i] is a backslash.
		var ok bool
		if b, i, ok = appendEscape(b, d.b, i); !ok {
			return "", false
		}
	}
}

// appendText appends a run of string bytes without escapes, refusing
// control characters and replacing each invalid UTF-8 byte with U+FFFD as
// encoding/json does. The run ends before a quote or backslash, neither
// of which can continue a UTF-8 sequence, so decoding within it is the
// same as decoding within the whole string.
func appendText(b, run []byte) ([]byte, bool) {
	for i := 0; i < len(run); {
		c := run[i]
		if c < utf8.RuneSelf {
			if c < 0x20 {
				return nil, false
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(run[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, run[i:i+size]...)
		}
		i += size
	}
	return b, true
}

// strInto decodes a string member into dst; null leaves dst alone, as
// encoding/json does.
func (d *msgDecoder) strInto(dst *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.str()
	*dst = s
	return ok
}

func (d *msgDecoder) boolInto(dst *bool) bool {
	if d.null() {
		return true
	}
	v, ok := d.boolean()
	*dst = v
	return ok
}

// number passes over a JSON number (exact grammar) and returns its text.
func (d *msgDecoder) number() ([]byte, bool) {
	s := d.i
	i := d.i
	b := d.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	d.i = i
	return b[s:i], true
}

// bytesString views b as a string for parsing calls that do not keep it.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// intInto decodes an integer member of the given bit size as
// encoding/json does (ParseInt: fractions and exponents are refused).
func (d *msgDecoder) intInto(dst *int64, bits int) bool {
	if d.null() {
		return true
	}
	t, ok := d.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(bytesString(t), 10, bits)
	*dst = n
	return err == nil
}

func (d *msgDecoder) intField(dst *int) bool {
	n := int64(*dst)
	if !d.intInto(&n, strconv.IntSize) {
		return false
	}
	*dst = int(n)
	return true
}

func (d *msgDecoder) floatInto(dst *float64) bool {
	if d.null() {
		return true
	}
	t, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(bytesString(t), 64)
	*dst = f
	return err == nil
}

// skip validates and passes over any value.
func (d *msgDecoder) skip() bool {
	switch c := d.peek(); {
	case c == '{':
		if d.depth++; d.depth > maxSkipDepth {
			return false
		}
		ok := d.object(func([]byte) bool { return d.skip() })
		d.depth--
		return ok
	case c == '[':
		if d.depth++; d.depth > maxSkipDepth {
			return false
		}
		ok := d.array(d.skip)
		d.depth--
		return ok
	case c == '"':
		return d.skipStr()
	case c == 't' || c == 'f':
		_, ok := d.boolean()
		return ok
	case c == 'n':
		return d.null()
	case c == '-' || c >= '0' && c <= '9':
		_, ok := d.number()
		return ok
	}
	return false
}

// skipStr validates and passes over a string: escapes must be valid and
// control characters absent; any other byte is fine (encoding/json keeps
// raw values as they are, invalid UTF-8 included).
func (d *msgDecoder) skipStr() bool {
	i := d.i + 1
	q := -1
	for {
		if q < i {
			k := bytes.IndexByte(d.b[i:], '"')
			if k < 0 {
				return false
			}
			q = i + k
		}
		run := d.b[i:q]
		k := bytes.IndexByte(run, '\\')
		if k >= 0 {
			run = run[:k]
		}
		if hasControl(run) {
			return false
		}
		i += len(run)
		if i == q {
			d.i = q + 1
			return true
		}
		if i+1 >= len(d.b) {
			return false
		}
		switch d.b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if hex4(d.b, i+2) < 0 {
				return false
			}
			i += 6
		default:
			return false
		}
	}
}

// raw validates a value and returns a copy of its bytes, as
// json.RawMessage keeps it.
func (d *msgDecoder) raw() ([]byte, bool) {
	d.ws()
	s := d.i
	if !d.skip() {
		return nil, false
	}
	return append([]byte(nil), d.b[s:d.i]...), true
}

// fields tracks which known members an object had: a repeated member is
// left to encoding/json (later values win there, partly merged for
// structs).
type fields uint64

func (f *fields) first(bit uint) bool {
	if *f&(1<<bit) != 0 {
		return false
	}
	*f |= 1 << bit
	return true
}

// foldsToKnown reports whether encoding/json could match key to one of the
// known names case-insensitively (Unicode folding: "ſ" matches "s").
func foldsToKnown(key []byte, known []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, k := range known {
		if len(k) == len(key) && bytes.EqualFold(key, []byte(k)) {
			return true
		}
	}
	return false
}

// extra keeps an unknown member in *ex, as unmarshalKnown does.
func (d *msgDecoder) extra(ex *Extra, key []byte, known []string) bool {
	if foldsToKnown(key, known) {
		return false
	}
	if _, dup := (*ex)[string(key)]; dup {
		return false
	}
	v, ok := d.raw()
	if !ok {
		return false
	}
	if *ex == nil {
		*ex = Extra{}
	}
	(*ex)[string(key)] = v
	return true
}

// ignore passes over an unknown member of a plain struct, which
// encoding/json drops.
func (d *msgDecoder) ignore(key []byte, known []string) bool {
	return !foldsToKnown(key, known) && d.skip()
}

// firstString returns the value of the object's first member when that
// member is name and its value a string, without moving on.
func (d *msgDecoder) firstString(name string) (string, bool) {
	save := d.i
	defer func() { d.i = save }()
	if d.peek() != '{' {
		return "", false
	}
	d.i++
	if d.peek() != '"' {
		return "", false
	}
	k, ok := d.key()
	if !ok || string(k) != name || d.peek() != ':' {
		return "", false
	}
	d.i++
	if d.peek() != '"' {
		return "", false
	}
	return d.str()
}
