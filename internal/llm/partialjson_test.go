package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPartialJSONPrefixes(t *testing.T) {
	full := `{"path": "a/b.go", "n": 12, "ok": true, "none": null, "list": [1, "two", {"x": [3]}], "nested": {"k": "v\n\"q\" \u00e9 \ud83d\ude00"}, "e": {}, "f": []}`
	var want map[string]any
	if err := json.Unmarshal([]byte(full), &want); err != nil {
		t.Fatal(err)
	}
	// Feed in every split size; the final value must equal the real parse,
	// and every intermediate view must be a "prefix" (no wrong values).
	for _, step := range []int{1, 2, 3, 7, 16, len(full)} {
		var p PartialJSON
		for i := 0; i < len(full); i += step {
			j := min(i+step, len(full))
			p.WriteString(full[i:j])
			v := p.Value()
			if s, ok := v["path"].(string); ok && !strings.HasPrefix("a/b.go", s) {
				t.Fatalf("step %d: path %q is not a prefix", step, s)
			}
		}
		if !p.Complete() {
			t.Fatalf("step %d: not complete", step)
		}
		if diff := cmp.Diff(want, p.Value()); diff != "" {
			t.Errorf("step %d: (-want +got)\n%s", step, diff)
		}
		var fin map[string]any
		if err := json.Unmarshal(p.Final(), &fin); err != nil || !cmp.Equal(want, fin) {
			t.Errorf("step %d: final %s", step, p.Final())
		}
	}
}

func TestPartialJSONPartialViews(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]any
	}{
		{``, map[string]any{}},
		{`{"pa`, map[string]any{}},
		{`{"path": "src/ma`, map[string]any{"path": "src/ma"}},
		{`{"a": 1`, map[string]any{}},
		{`{"a": 1,`, map[string]any{"a": 1.0}},
		{`{"a": [1, "x`, map[string]any{"a": []any{1.0, "x"}}},
		{`{"a": {"b": tr`, map[string]any{"a": map[string]any{}}},
		{`{"s": "x\`, map[string]any{"s": "x"}},
		{`{"s": "x\u00`, map[string]any{"s": "x"}},
		{`[1,2]`, map[string]any{}},
		{`{"a": 1} trailing`, map[string]any{"a": 1.0}},
	}
	for _, tt := range tests {
		var p PartialJSON
		p.WriteString(tt.in)
		if diff := cmp.Diff(tt.want, p.Value()); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestPartialJSONFinal(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{ "a" : 1 , "b":[ 1, 2 ] }`, `{"a":1,"b":[1,2]}`},
		{`{"a": "<tag>&"}`, `{"a":"<tag>&"}`},
		{`{"a": "cut`, `{"a":"cut"}`},
		{`{"a": 5`, `{"a":5}`},
		{`{"z": 1, "a": {"b": "c`, `{"a":{"b":"c"},"z":1}`},
	}
	for _, tt := range tests {
		var p PartialJSON
		p.WriteString(tt.in)
		if got := string(p.Final()); got != tt.want {
			t.Errorf("Final(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestPartialJSONSameMap(t *testing.T) {
	var p PartialJSON
	p.WriteString(`{"a": "x`)
	m := p.Value()
	p.WriteString(`yz"}`)
	if m["a"] != "xyz" {
		t.Fatalf("map not updated in place: %v", m)
	}
}
