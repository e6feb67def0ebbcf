package session

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// DecodeMessage decodes afresh each time (no cache shared with Message) and
// names the entry when the message is unreadable.
func TestDecodeMessageUncached(t *testing.T) {
	m := InMemory("/p")
	id, err := m.AppendMessage(&llm.UserMessage{Content: llm.StringContent("hi"), Timestamp: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Entry(id)
	a, err := e.DecodeMessage()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.DecodeMessage()
	cached, _ := e.Message()
	if a == b || a == cached {
		t.Error("DecodeMessage returned a shared (cached) message")
	}
	if u, ok := a.(*llm.UserMessage); !ok || u.Content.PlainText() != "hi" {
		t.Errorf("decoded %#v", a)
	}
	bad, err := parseEntry([]byte(`{"type":"message","id":"x1","parentId":null,"timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":7}}`), 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.DecodeMessage(); err == nil {
		t.Error("an unreadable message decoded")
	} else if want := "entry x1 (line 3)"; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Errorf("error %q should name the entry", err)
	}
	if msg, err := (&Entry{Type: TypeLabel}).DecodeMessage(); msg != nil || err != nil {
		t.Error("non-message entries decode to nil, nil")
	}
}
