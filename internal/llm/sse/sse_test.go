package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, r io.Reader) ([]Event, error) {
	t.Helper()
	sr := NewReader(r)
	var out []Event
	for {
		ev, err := sr.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// readAllRaw reads with NextRaw, copying the data it is handed.
func readAllRaw(r io.Reader) ([]Event, error) {
	sr := NewReader(r)
	var out []Event
	for {
		ev, data, err := sr.NextRaw()
		if err != nil {
			return out, err
		}
		out = append(out, Event{Event: ev, Data: string(data)})
	}
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 300_000)
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"lf", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Event: "a", Data: "1", Retry: -1}, {Data: "2", Retry: -1}}},
		{"crlf", "event: a\r\ndata: 1\r\n\r\n", []Event{{Event: "a", Data: "1", Retry: -1}}},
		{"cr", "event: a\rdata: 1\r\rdata: 2\r\r", []Event{{Event: "a", Data: "1", Retry: -1}, {Data: "2", Retry: -1}}},
		{"multiline data", "data: a\ndata:b\ndata\n\n", []Event{{Data: "a\nb\n", Retry: -1}}},
		{"comments ignored", ": ping\n\n:x\ndata: y\n\n", []Event{{Data: "y", Retry: -1}}},
		{"no data no dispatch", "event: ping\n\ndata: z\n\n", []Event{{Data: "z", Retry: -1}}},
		{"only one space stripped", "data:  two\n\n", []Event{{Data: " two", Retry: -1}}},
		{"id persists, retry", "id: 7\nretry: 150\ndata: a\n\ndata: b\n\n", []Event{{Data: "a", ID: "7", Retry: 150}, {Data: "b", ID: "7", Retry: -1}}},
		{"bad retry ignored", "retry: 1x\ndata: a\n\n", []Event{{Data: "a", Retry: -1}}},
		{"unknown field", "foo: bar\ndata: a\n\n", []Event{{Data: "a", Retry: -1}}},
		{"long line", "data: " + long + "\n\n", []Event{{Data: long, Retry: -1}}},
		{"final event without blank line", "data: a\n", []Event{{Data: "a", Retry: -1}}},
		{"cut line dropped", "data: a\n\ndata: {\"par", []Event{{Data: "a", Retry: -1}}},
		{"empty", "", nil},
		{"bom skipped", "\xEF\xBB\xBFdata: a\n\n", []Event{{Data: "a", Retry: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "onebyte", "raw"} {
				var r io.Reader = strings.NewReader(tt.in)
				if mode == "onebyte" {
					r = iotest.OneByteReader(r)
				}
				var got []Event
				var err error
				if mode != "raw" {
					got, err = readAll(t, r)
				} else {
					got, err = readAllRaw(r)
					for i := range tt.want {
						if i < len(got) {
							got[i].ID, got[i].Retry = tt.want[i].ID, tt.want[i].Retry
						}
					}
				}
				if err != io.EOF {
					t.Fatalf("%s: err = %v", mode, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: (-want +got)\n%s", mode, diff)
				}
			}
		})
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 1 || got[0].Data != "a" {
		t.Fatalf("got %+v", got)
	}
}

// chunkReader returns its input in reads of the given sizes, cycling.
type chunkReader struct {
	s     string
	sizes []int
	n     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := min(len(p), len(c.s), c.sizes[c.n%len(c.sizes)])
	c.n++
	copy(p, c.s[:k])
	c.s = c.s[k:]
	return k, nil
}

// TestReaderRawAcrossRefills reads events whose lines straddle buffer
// refills (single data lines are handed out from the read buffer, so a
// refill before the blank line must not disturb them) in many read sizes.
func TestReaderRawAcrossRefills(t *testing.T) {
	var in strings.Builder
	var want []string
	for i := range 400 {
		d := strings.Repeat(string(rune('a'+i%26)), (i*997)%3000)
		if i%7 == 0 {
			d += "\n" + strings.Repeat("z", i%50) // two data lines
		}
		want = append(want, d)
		in.WriteString("event: e\n")
		for _, line := range strings.Split(d, "\n") {
			in.WriteString("data: " + line + "\n")
		}
		in.WriteString("\n")
	}
	for _, sizes := range [][]int{{1}, {7, 1, 300}, {4096}, {16384, 5}, {1 << 20}} {
		r := NewReader(&chunkReader{s: in.String(), sizes: sizes})
		for i := 0; ; i++ {
			ev, data, err := r.NextRaw()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("sizes %v: %d events, want %d", sizes, i, len(want))
				}
				break
			}
			if err != nil || ev != "e" || string(data) != want[i] {
				t.Fatalf("sizes %v: event %d: %q %v (%d bytes, want %d)", sizes, i, ev, err, len(data), len(want[i]))
			}
		}
	}
}

// TestReaderMixedLineEndings mixes LF, CR and CRLF endings (one stream may
// switch) over many read sizes.
func TestReaderMixedLineEndings(t *testing.T) {
	ends := []string{"\n", "\r", "\r\n"}
	var in strings.Builder
	var want []string
	seed := 7
	next := func(n int) int { seed = (seed*1103515245 + 12345) & 0x7fffffff; return seed % n }
	prev := ""
	end := func() string {
		// A CR then an LF would be one CRLF ending.
		e := ends[next(3)]
		for prev == "\r" && e == "\n" {
			e = ends[next(3)]
		}
		prev = e
		return e
	}
	for i := range 300 {
		d := strings.Repeat("d", next(500))
		if i%5 == 0 {
			d += "\n" + strings.Repeat("e", next(40))
		}
		want = append(want, d)
		in.WriteString("event: e" + end())
		for _, line := range strings.Split(d, "\n") {
			in.WriteString("data: " + line + end())
		}
		in.WriteString(end())
	}
	for _, sizes := range [][]int{{1}, {2, 3}, {100, 1}, {4096}, {1 << 20}} {
		r := NewReader(&chunkReader{s: in.String(), sizes: sizes})
		for i := 0; ; i++ {
			ev, data, err := r.NextRaw()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("sizes %v: %d events, want %d", sizes, i, len(want))
				}
				break
			}
			if err != nil || ev != "e" || string(data) != want[i] {
				t.Fatalf("sizes %v: event %d: %q %v (%d bytes, want %d)", sizes, i, ev, err, len(data), len(want[i]))
			}
		}
	}
}

func TestReaderFieldNames(t *testing.T) {
	got, err := readAll(t, strings.NewReader("id:x:y\ndata:a:b\nevent:e:f\ndat:z\nretry:5\ndata\n\n"))
	want := []Event{{Event: "e:f", Data: "a:b\n", ID: "x:y", Retry: 5}}
	if err != io.EOF {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
