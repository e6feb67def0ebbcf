package llm

import (
	"bytes"
	"os"
	"testing"
)

// Every shape in testdata/roundtrip.jsonl must re-encode byte for byte,
// including unknown roles, unknown block types and unknown fields.
func TestMessageRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		m, err := DecodeMessage(line)
		if err != nil {
			t.Fatalf("line %d: decode: %v", i+1, err)
		}
		got, err := Marshal(m)
		if err != nil {
			t.Fatalf("line %d: encode: %v", i+1, err)
		}
		if !bytes.Equal(got, line) {
			t.Errorf("line %d round trip:\n got %s\nwant %s", i+1, got, line)
		}
	}
}

func TestDecodeMessageTypes(t *testing.T) {
	tests := []struct {
		in   string
		role string
	}{
		{`{"role":"user","content":"x","timestamp":1}`, "user"},
		{`{"role":"hookMessage","content":"x"}`, "hookMessage"},
		{`{"content":"x"}`, ""},
	}
	for _, tc := range tests {
		m, err := DecodeMessage([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if m.MessageRole() != tc.role {
			t.Errorf("%s: role %q, want %q", tc.in, m.MessageRole(), tc.role)
		}
	}
	if _, err := DecodeMessage([]byte(`[1]`)); err == nil {
		t.Error("array accepted as message")
	}
}

func TestClampThinkingLevel(t *testing.T) {
	null := (*string)(nil)
	x := "xhigh"
	tests := []struct {
		name  string
		model Model
		in    ThinkingLevel
		want  ThinkingLevel
	}{
		{"non-reasoning", Model{}, ThinkingHigh, ThinkingOff},
		{"xhigh unmapped clamps down", Model{Reasoning: true}, ThinkingXHigh, ThinkingHigh},
		{"xhigh mapped", Model{Reasoning: true, ThinkingLevelMap: map[string]*string{"xhigh": &x}}, ThinkingXHigh, ThinkingXHigh},
		{"null minimal searches up", Model{Reasoning: true, ThinkingLevelMap: map[string]*string{"minimal": null}}, ThinkingMinimal, ThinkingLow},
	}
	for _, tc := range tests {
		if got := tc.model.ClampThinkingLevel(tc.in); got != tc.want {
			t.Errorf("%s: got %s want %s", tc.name, got, tc.want)
		}
	}
}

func TestCalculateCost(t *testing.T) {
	m := Model{Cost: ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75,
		Tiers: []CostTier{{InputTokensAbove: 200000, Input: 6, Output: 22.5, CacheRead: 0.6, CacheWrite: 7.5}}}}
	u := Usage{Input: 1000000, Output: 1000000, CacheRead: 1000000, CacheWrite: 1000000}
	m.CalculateCost(&u)
	if u.Cost.Input != 6 || u.Cost.Output != 22.5 || u.Cost.Total != 6+22.5+0.6+7.5 {
		t.Errorf("tiered cost wrong: %+v", u.Cost)
	}
	u = Usage{Input: 1000, Output: 2000}
	m.CalculateCost(&u)
	if u.Cost.Input != 0.003 || u.Cost.Output != 0.03 {
		t.Errorf("base cost wrong: %+v", u.Cost)
	}
}
