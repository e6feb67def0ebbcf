package llmtest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/sse"
)

func post(t *testing.T, url, body string) (*http.Response, []sse.Event, error) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := sse.NewReader(resp.Body)
	var evs []sse.Event
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return resp, evs, err
		}
		evs = append(evs, ev)
	}
}

func TestServerOrderRulesAndRecording(t *testing.T) {
	yes := true
	s := NewServer(&Script{
		Rules:     []Rule{{When: Match{ToolResult: &yes}, Response: Response{Text: "after tool"}}},
		Responses: []Response{{Text: "first"}, {ToolCalls: []Block{{Name: "ls", Args: []byte(`{"path":"."}`)}}}},
	})
	defer s.Close()
	url := s.URL + "/v1/messages"
	_, evs, err := post(t, url, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if err != nil || !strings.Contains(evs[3].Data, `"first"`) {
		t.Fatalf("%v %+v", err, evs)
	}
	_, evs, _ = post(t, url, `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}]}`)
	if !strings.Contains(evs[3].Data, "after tool") {
		t.Fatalf("rule not applied: %+v", evs)
	}
	_, evs, _ = post(t, url, `{"model":"m","messages":[]}`)
	if !strings.Contains(evs[1].Data, `"tool_use"`) || !strings.Contains(evs[len(evs)-2].Data, `"tool_use"`) {
		t.Fatalf("tool call: %+v", evs)
	}
	resp, _, _ := post(t, url, `{}`)
	if resp.StatusCode != 500 {
		t.Fatalf("exhausted status %d", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 4 || reqs[0].API != "anthropic-messages" || reqs[0].Body["model"] != "m" || reqs[0].Path != "/v1/messages" {
		t.Fatalf("recorded %+v", reqs[0])
	}
}

func TestServerFaults(t *testing.T) {
	s := NewServer(&Script{Responses: []Response{
		{Fault: &Fault{Status: 429, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, RetryAfter: "3"}},
		{Text: "hello world", Fault: &Fault{CutAfter: 300}},
		{Text: "x", Fault: &Fault{ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}},
		{Text: "x", Fault: &Fault{Garbage: "{not json"}},
	}})
	defer s.Close()
	url := s.URL + "/v1/messages"
	resp, _, _ := post(t, url, `{}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("status %d", resp.StatusCode)
	}
	_, _, err := post(t, url, `{}`)
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut: err = %v", err)
	}
	_, evs, _ := post(t, url, `{}`)
	if last := evs[len(evs)-1]; last.Event != "error" || !strings.Contains(last.Data, "overloaded_error") {
		t.Fatalf("error event %+v", last)
	}
	_, evs, _ = post(t, url, `{}`)
	found := false
	for _, e := range evs {
		found = found || e.Data == "{not json"
	}
	if !found {
		t.Fatal("garbage line not sent")
	}
}

func TestChunks(t *testing.T) {
	got := Chunks("héllo", 2)
	if strings.Join(got, "") != "héllo" || len(got) != 4 {
		t.Fatalf("%q", got)
	}
}

func TestServerMatchingAndRepeat(t *testing.T) {
	s := NewServer(&Script{
		Rules: []Rule{
			{When: Match{Contains: "magic word"}, Response: Response{Text: "once"}, Times: 1},
			{When: Match{Model: "other-model", API: "anthropic-messages"}, Response: Response{Text: "other"}},
		},
		Responses:   []Response{{Text: "a"}, {Text: "b"}},
		Repeat:      true,
		ZeroLatency: true,
	})
	defer s.Close()
	url := s.URL + "/v1/messages"
	text := func(body string) string {
		_, evs, err := post(t, url, body)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			var d struct {
				Delta struct{ Text string } `json:"delta"`
			}
			if strings.Contains(e.Data, "text_delta") && json.Unmarshal([]byte(e.Data), &d) == nil {
				return d.Delta.Text
			}
		}
		return ""
	}
	got := []string{
		text(`{"model":"m","x":"magic word"}`),
		text(`{"model":"m","x":"magic word"}`), // rule used up: in-order queue
		text(`{"model":"other-model"}`),
		text(`{"model":"m"}`),
		text(`{"model":"m"}`), // repeat the last
	}
	want := []string{"once", "a", "other", "b", "b"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s.Remaining() != 0 {
		t.Fatalf("remaining %d", s.Remaining())
	}
	s.Push(Response{Text: "pushed"})
	if got := text(`{"model":"m"}`); got != "pushed" {
		t.Fatalf("push: %q", got)
	}
}

func TestUnknownPath(t *testing.T) {
	s := NewServer(&Script{})
	defer s.Close()
	resp, _, _ := post(t, s.URL+"/nope", `{}`)
	if resp.StatusCode != 404 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/s.json"
	os.WriteFile(path, []byte(`{"responses":[{"text":"hi","delay":"5ms","fault":{"stall":"1s","cutAfter":10}}]}`), 0o644)
	s, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Responses[0]
	if r.Delay != Duration(5*time.Millisecond) || r.Fault.Stall != Duration(time.Second) || r.Fault.CutAfter != 10 {
		t.Fatalf("%+v %+v", r, r.Fault)
	}
}
