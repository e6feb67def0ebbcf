package jsonc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestStrip(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", `{"a": 1}`, `{"a": 1}`},
		{"line comment", "{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{"line comment at eof", "1 // x", "1     "},
		{"block comment", `{/* c */"a": 1}`, `{       "a": 1}`},
		{"block keeps newlines", "[/*a\nb*/1]", "[   \n   1]"},
		{"unterminated block", "[1 /* x", "[1     "},
		{"trailing comma object", `{"a": 1,}`, `{"a": 1 }`},
		{"trailing comma array", "[1, 2 ,\n]", "[1, 2  \n]"},
		{"comma then comment", "[1, // x\n]", "[1      \n]"},
		{"comma before value kept", `[1, 2]`, `[1, 2]`},
		{"slashes in string", `{"u": "http://x/*y*/"}`, `{"u": "http://x/*y*/"}`},
		{"escaped quote in string", `["a\"//b", 1,]`, `["a\"//b", 1 ]`},
		{"comma in string", `["a,"]`, `["a,"]`},
		{"bom", "\xef\xbb\xbf{}", "{}"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			orig := bytes.Clone(in)
			got := Strip(in)
			if string(got) != c.want {
				t.Errorf("Strip(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if !bytes.Equal(in, orig) {
				t.Errorf("Strip modified its input")
			}
			if len(got) != len(TrimBOM(in)) {
				t.Errorf("length changed: %d -> %d", len(TrimBOM(in)), len(got))
			}
		})
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nx")
	cases := []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3},
		{6, 3, 1}, {7, 4, 1}, {8, 4, 2}, {100, 4, 2}, {-1, 1, 1},
	}
	for _, c := range cases {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("LineCol(%d) = %d,%d want %d,%d", c.off, l, col, c.line, c.col)
		}
	}
}

// pairs is a minimal ordered object for the decoder tests.
type pairs struct{ kv [][2]any }

func (p *pairs) put(k string, v any) {
	for i := range p.kv {
		if p.kv[i][0] == k {
			p.kv[i][1] = v
			return
		}
	}
	p.kv = append(p.kv, [2]any{k, v})
}

func decode(t *testing.T, s string) (any, error) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return DecodeValue(dec, func() *pairs { return &pairs{} }, (*pairs).put)
}

func TestDecodeValue(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want any
	}{
		{"scalar", `"x"`, "x"},
		{"number", `1.50`, json.Number("1.50")},
		{"null", `null`, nil},
		{"empty array", `[]`, []any{}},
		{"order kept", `{"b":1,"a":true}`, &pairs{kv: [][2]any{{"b", json.Number("1")}, {"a", true}}}},
		{"duplicate keeps last", `{"a":1,"b":2,"a":3}`, &pairs{kv: [][2]any{{"a", json.Number("3")}, {"b", json.Number("2")}}}},
		{"nested", `[{"k":[null]}]`, []any{&pairs{kv: [][2]any{{"k", []any{nil}}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decode(t, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v want %#v", got, c.want)
			}
		})
	}
}

func TestDecodeValueErrors(t *testing.T) {
	for _, in := range []string{`{"a":}`, `[1,]`, `{"a":1`, `]`, ``} {
		if _, err := decode(t, in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

// TestStripThenDecode checks the point of blanking in place: a syntax error
// offset in stripped text names the user's line and column.
func TestStripThenDecode(t *testing.T) {
	src := "{\n  // note\n  \"a\": 1, /* x */\n  \"b\": ?\n}"
	clean := Strip([]byte(src))
	var v any
	err := json.Unmarshal(clean, &v)
	se, ok := err.(*json.SyntaxError)
	if !ok {
		t.Fatalf("want *json.SyntaxError, got %v", err)
	}
	if l, c := LineCol(clean, se.Offset); l != 4 || c != 9 {
		t.Errorf("error at %d,%d want 4,9", l, c)
	}
}
