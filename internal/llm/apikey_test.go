package llm

import "testing"

func TestMissingKey(t *testing.T) {
	m := &Model{Provider: "openai"}
	if pe := MissingKey(&Request{Model: m}, "authorization"); pe == nil || pe.Message != "No API key for provider: openai" || pe.Kind != ErrAuth {
		t.Errorf("got %v", pe)
	}
	if MissingKey(&Request{Model: m, APIKey: "k"}) != nil {
		t.Errorf("key present")
	}
	if MissingKey(&Request{Model: m, Headers: map[string]string{"Authorization": "Bearer x"}}, "authorization") != nil {
		t.Errorf("header present")
	}
	m2 := &Model{Provider: "p", Headers: map[string]string{"cf-aig-authorization": "x"}}
	if MissingKey(&Request{Model: m2}, "authorization", "cf-aig-authorization") != nil {
		t.Errorf("model header present")
	}
}
