package hooks

import "testing"

func TestWhenUI(t *testing.T) {
	s := New()
	var got []string
	s.WhenUI(func(UI) { got = append(got, "early") })
	if len(got) != 0 {
		t.Fatal("ran before a UI was attached")
	}
	unbind := s.BindUI(Headless{})
	s.WhenUI(func(UI) { got = append(got, "late") })
	if len(got) != 2 || got[0] != "early" || got[1] != "late" {
		t.Fatalf("got %v", got)
	}
	unbind()
	s.BindUI(Headless{})
	if len(got) != 2 {
		t.Errorf("a waiter ran twice: %v", got)
	}
}
