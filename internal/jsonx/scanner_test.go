package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestScannerStrings(t *testing.T) {
	for _, in := range []string{
		`"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00 emoji"`, `"lone \ud83d x"`,
		`"lone \ud83d\u0041"`, `"\ud800\ud800\udc00"`, `"\ud800\\n"`, `"\ude00"`, `"héllo ✓"`, `""`,
		// Runs around escapes shorter and longer than shortRun.
		`"ne of text \\\"q\\\"\\n"`, `"` + strings.Repeat("long run é ", 8) + `\n` + strings.Repeat("x", 40) + `\"` + `"`,
		`"\n` + strings.Repeat("y", shortRun) + `"`, `"\n` + strings.Repeat("y", shortRun-1) + `\t"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		var p Scanner
		p.Reset(in)
		got, ok := p.String()
		if !ok || got != want || !p.End() {
			t.Errorf("%s: got %q ok=%v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{`"open`, `"bad \x"`, "\"ctl \x01\"", `"\u12"`, `x`} {
		var p Scanner
		p.Reset(bad)
		if _, ok := p.String(); ok {
			t.Errorf("%s accepted", bad)
		}
	}
}

// Int64 reads what encoding/json decodes into an integer of that size and
// refuses the rest (signs, fractions, exponents, leading zeros, overflow).
func TestScannerInt64MatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{"0", "7", " 42 ", "01", "-1", "-0", "1.5", "1e3", "12E1", "2147483647", "2147483648",
		"123456789012345678", "9223372036854775807", "9223372036854775808", "00", "5x", "[1]", ""} {
		for _, bits := range []int{32, 64} {
			var p Scanner
			p.Reset(in)
			got, ok := p.Int64(bits)
			ok = ok && p.End()
			var want int64
			var err error
			if bits == 32 {
				var w int32
				err = json.Unmarshal([]byte(in), &w)
				want = int64(w)
			} else {
				err = json.Unmarshal([]byte(in), &want)
			}
			if ok != (err == nil) || ok && got != want {
				t.Errorf("%q bits %d: got %d ok=%v, encoding/json %d %v", in, bits, got, ok, want, err)
			}
		}
	}
}

func TestScannerObject(t *testing.T) {
	in := ` {"id":"x","n":-12,"skip":{"a":[1,2.5e3,{"b":null}],"t":true,"f":false},"arr":["p","q"],"nul":null} `
	var p Scanner
	p.Reset(in)
	var id string
	var n int
	var arr []string
	ok := p.Object(func(k string) bool {
		switch k {
		case "id":
			var ok bool
			id, ok = p.String()
			return ok
		case "n":
			var ok bool
			n, ok = p.Int()
			return ok
		case "arr":
			return p.Array(func(int) bool {
				s, ok := p.String()
				arr = append(arr, s)
				return ok
			})
		case "nul":
			return p.Null()
		}
		return p.Skip()
	})
	if !ok || !p.End() || id != "x" || n != -12 || len(arr) != 2 || arr[1] != "q" {
		t.Fatalf("ok=%v id=%q n=%d arr=%v", ok, id, n, arr)
	}
	for _, bad := range []string{`{"a":1`, `{"a" 1}`, `{"a":1,}`, `[1 2]`, `{"a":tru}`} {
		p.Reset(bad)
		if p.Skip() && p.End() {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzScannerString(f *testing.F) {
	f.Add(`"a\u00e9\ud83d\ude00\n"`)
	f.Add(`"\ud800\udc00\ud800"`)
	f.Add(`"0123456789abcde\n"`)
	f.Add("\"ctl\x01\\n\"")
	f.Fuzz(func(t *testing.T, in string) {
		var p Scanner
		if len(in) > 0 && in[0] == '"' && stringEnd(in, 0) == len(in) {
			// A whole token: HoleString must agree with String.
			p.Reset(in)
			hs, hok := p.HoleString(Hole{Start: 0, End: len(in), Kind: HoleString})
			p.Reset(in)
			s, ok := p.String()
			if hok != ok || hs != s {
				t.Fatalf("%q: HoleString %q %v, String %q %v", in, hs, hok, s, ok)
			}
		}
		p.Reset(in)
		got, ok := p.String()
		if !ok || !p.End() {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("scanner accepted %q that encoding/json rejects: %v", in, err)
		}
		if got != want {
			t.Fatalf("%q: got %q want %q", in, got, want)
		}
	})
}

func TestScannerSkipLongEscapedString(t *testing.T) {
	long, _ := json.Marshal(strings.Repeat("line \"q\" \\\n", 100000))
	in := `{"a":` + string(long) + `,"b":"\\","c":1}`
	var p Scanner
	p.Reset(in)
	var c int
	ok := p.Object(func(k string) bool {
		if k == "c" {
			var ok bool
			c, ok = p.Int()
			return ok
		}
		return p.Skip()
	})
	if !ok || !p.End() || c != 1 {
		t.Fatalf("ok=%v c=%d", ok, c)
	}
}

// BenchmarkScannerEscaped decodes a 2 MB string with an escape every 16
// bytes: it must stay linear.
func BenchmarkScannerEscaped(b *testing.B) {
	long, _ := json.Marshal(strings.Repeat("0123456789abcde\n", 2<<20/16))
	var p Scanner
	b.SetBytes(int64(len(long)))
	for b.Loop() {
		p.Reset(string(long))
		if _, ok := p.String(); !ok {
			b.Fatal("not decoded")
		}
	}
}

func TestScannerDetach(t *testing.T) {
	data := []byte(`["plain","esc\n"]`)
	var p Scanner
	p.ResetBytes(data)
	var got []string
	p.Array(func(int) bool {
		s, ok := p.String()
		got = append(got, p.Detach(s))
		return ok
	})
	copy(data, bytes.Repeat([]byte("x"), len(data)))
	if got[0] != "plain" || got[1] != "esc\n" {
		t.Fatalf("detached strings changed with the input: %q", got)
	}
}

// TestScannerStringViewKeepsEarlier decodes several escaped strings of one
// document with StringView: each stays intact while the next are decoded,
// and String in between does not disturb them.
func TestScannerStringViewKeepsEarlier(t *testing.T) {
	var p Scanner
	p.Reset(`["a\nb","c\td","plain","e\"f"]`)
	var got []string
	ok := p.Array(func(i int) bool {
		var s string
		var ok bool
		if i == 1 {
			s, ok = p.String()
		} else {
			s, ok = p.StringView()
		}
		got = append(got, s)
		return ok
	})
	want := []string{"a\nb", "c\td", "plain", "e\"f"}
	if !ok || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
}

func TestTemplate(t *testing.T) {
	doc := []byte(`{"seq":12,"item":"it_1","delta":"Hi\n","pad":"xy"}`)
	holes := []Hole{{Start: 7, End: 9, Kind: HoleInt}, {Start: 32, End: 38, Kind: HoleString}, {Start: 45, End: 49, Kind: HoleString}}
	if string(doc[7:9]) != "12" || string(doc[32:38]) != `"Hi\n"` || string(doc[45:49]) != `"xy"` {
		t.Fatal("bad test holes")
	}
	var tm Template
	spans := make([]Hole, 3)
	if tm.Match(doc, spans) {
		t.Fatal("empty template matched")
	}
	tm.Set(doc, holes)
	for _, c := range []struct {
		doc   string
		ok    bool
		delta string
	}{
		{`{"seq":12,"item":"it_1","delta":"Hi\n","pad":"xy"}`, true, `"Hi\n"`},
		{`{"seq":1234,"item":"it_1","delta":"say \"x\" \\","pad":""}`, true, `"say \"x\" \\"`},
		{`{"seq":-3,"item":"it_1","delta":"","pad":"a\"b"}`, true, `""`},
		{`{"seq":013,"item":"it_1","delta":"x","pad":"xy"}`, false, ""},
		{`{"seq":1.5,"item":"it_1","delta":"x","pad":"xy"}`, false, ""},
		{`{"seq":12,"item":"it_2","delta":"x","pad":"xy"}`, false, ""},
		{`{"seq":12,"item":"it_1","delta":5,"pad":"xy"}`, false, ""},
		{`{"seq":12,"item":"it_1","delta":"x","pad":"xy"} `, false, ""},
		{`{"seq":12,"item":"it_1","delta":"x","pad":"xy`, false, ""},
		{`{"seq":12,"item":"it_1","delta":"x`, false, ""},
		{`{"seq":`, false, ""},
	} {
		ok := tm.Match([]byte(c.doc), spans)
		if ok != c.ok {
			t.Errorf("%s: match=%v", c.doc, ok)
			continue
		}
		if ok && c.doc[spans[1].Start:spans[1].End] != c.delta {
			t.Errorf("%s: delta span %q", c.doc, c.doc[spans[1].Start:spans[1].End])
		}
	}
	tm.Clear()
	if tm.Match(doc, spans) || tm.Holes() != 0 {
		t.Error("cleared template matched")
	}
}

// BenchmarkScannerShortEscaped decodes the 16-byte delta of a streamed
// chunk, the string a long answer decodes a hundred thousand times.
func BenchmarkScannerShortEscaped(b *testing.B) {
	doc := []byte(`"0123456789abcde\n"`)
	var p Scanner
	for b.Loop() {
		p.ResetBytes(doc)
		if s, ok := p.StringView(); !ok || len(s) != 16 {
			b.Fatal("not decoded")
		}
	}
}
