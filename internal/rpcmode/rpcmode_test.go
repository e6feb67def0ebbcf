package rpcmode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// noModels is a registry without any model.
type noModels struct{}

func (noModels) Client(*llm.Model) (llm.Client, error) { return nil, errors.New("no client") }
func (noModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "", nil, nil
}
func (noModels) Find(string, string) *llm.Model { return nil }
func (noModels) Available() []*llm.Model        { return nil }

// serve runs a whole RPC conversation over an in-memory session without a
// model and returns the records written to stdout.
func serve(t *testing.T, input string) []map[string]any {
	t.Helper()
	rt, err := app.New(app.Config{Cwd: t.TempDir(), Session: session.InMemory(t.TempDir()), Models: noModels{}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := Serve(context.Background(), rt, strings.NewReader(input), &out, Options{Models: app.ModelCycle{Models: noModels{}}}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		recs = append(recs, m)
	}
	return recs
}

func TestResponses(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any // fields the single response must have
		noID     bool
	}{
		{"malformed JSON", `{"id":"1","type":`, map[string]any{"id": "1", "command": "parse", "success": false}, false},
		{"malformed JSON without id", `{"type":"get_state",`, map[string]any{"command": "parse", "success": false}, true},
		{"not an object", `[1,2]`, map[string]any{"command": "parse", "success": false}, true},
		{"unknown type", `{"id":"1","type":"nope"}`, map[string]any{"id": "1", "command": "nope", "success": false, "error": "Unknown command: nope"}, false},
		{"type of the wrong kind", `{"id":"1","type":5}`, map[string]any{"id": "1", "command": "parse", "success": false}, false},
		{"wrong field type", `{"id":"1","type":"set_auto_retry","enabled":"yes"}`, map[string]any{"id": "1", "command": "set_auto_retry", "success": false}, false},
		{"CRLF", "{\"id\":\"1\",\"type\":\"get_state\"}\r", map[string]any{"id": "1", "command": "get_state", "success": true}, false},
		{"no model", `{"id":"1","type":"prompt","message":"hi"}`, map[string]any{"id": "1", "command": "prompt", "success": false}, false},
		{"cycle_model with no models", `{"id":"1","type":"cycle_model"}`, map[string]any{"id": "1", "success": true, "data": nil}, false},
		{"set_model unknown", `{"id":"1","type":"set_model","provider":"p","modelId":"m"}`, map[string]any{"success": false, "error": "Model not found: p/m"}, false},
		{"levels without model", `{"id":"1","type":"get_available_thinking_levels"}`, map[string]any{"success": true}, false},
		{"empty name", `{"id":"1","type":"set_session_name","name":" "}`, map[string]any{"success": false, "error": "Session name cannot be empty"}, false},
		{"empty bash", `{"id":"1","type":"bash","command":""}`, map[string]any{"success": false}, false},
		{"since unknown", `{"id":"1","type":"get_entries","since":"abc"}`, map[string]any{"success": false}, false},
		{"prompt without message", `{"id":"7","type":"prompt"}`, map[string]any{"id": "7", "command": "prompt", "success": false, "error": `Missing "message": prompt needs the message text as a string`}, false},
		{"steer without message", `{"id":"7","type":"steer","images":[]}`, map[string]any{"id": "7", "command": "steer", "success": false, "error": `Missing "message": steer needs the message text as a string`}, false},
		{"follow_up with null message", `{"id":"7","type":"follow_up","message":null}`, map[string]any{"id": "7", "command": "follow_up", "success": false, "error": `Missing "message": follow_up needs the message text as a string`}, false},
		{"queue /laya", `{"id":"1","type":"steer","message":"/laya"}`, map[string]any{"success": false}, false},
		{"bad mode", `{"id":"1","type":"set_steering_mode","mode":"x"}`, map[string]any{"success": false}, false},
		{"abort when idle", `{"id":"1","type":"abort"}`, map[string]any{"success": true}, false},
		// The original answers {}: its RpcClient then yields undefined.
		{"no assistant text yet", `{"id":"1","type":"get_last_assistant_text"}`, map[string]any{"success": true, "data": map[string]any{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := serve(t, tt.in+"\n")
			if len(recs) != 1 {
				t.Fatalf("records %v", recs)
			}
			r := recs[0]
			if r["type"] != "response" {
				t.Fatalf("not a response: %v", r)
			}
			for k, v := range tt.want {
				got, has := r[k]
				if !has || !reflect.DeepEqual(got, v) {
					t.Errorf("%s = %v (present %v), want %v; %v", k, got, has, v, r)
				}
			}
			if _, has := r["id"]; has == tt.noID {
				t.Errorf("id presence %v: %v", has, r)
			}
			if r["success"] == false {
				if _, has := r["data"]; has {
					t.Errorf("failure with data: %v", r)
				}
				if s, _ := r["error"].(string); s == "" {
					t.Errorf("failure without error: %v", r)
				}
			}
		})
	}
}

func TestSeparatorsAndStateShape(t *testing.T) {
	recs := serve(t, "{\"id\":\"n\",\"type\":\"set_session_name\",\"name\":\"a\u2028b\u2029c\"}\n{\"id\":\"s\",\"type\":\"get_state\"}\n")
	var state map[string]any
	for _, r := range recs {
		if r["id"] == "s" {
			state = r["data"].(map[string]any)
		}
	}
	if state == nil {
		t.Fatalf("no get_state response: %v", recs)
	}
	if state["sessionName"] != "a\u2028b\u2029c" {
		t.Errorf("sessionName %q", state["sessionName"])
	}
	for _, k := range []string{"thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode", "sessionId",
		"autoCompactionEnabled", "messageCount", "pendingMessageCount"} {
		if _, ok := state[k]; !ok {
			t.Errorf("state lacks %s", k)
		}
	}
	for _, k := range []string{"model", "sessionFile"} {
		if _, ok := state[k]; ok {
			t.Errorf("state has %s without a model / in memory", k)
		}
	}
}

func TestReadableID(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"1","type":`:                     "1",
		`{"type":"x","id":"a\"b"`:               `a"b`,
		`{"a":{"id":"inner"},"id":"outer","t":`: "outer",
		`{"a":[{"id":"no"}],"b":1,"id":"yes"}`:  "yes",
		`{"type":"x"`:                           "",
		`{"id":5}`:                              "",
		`[{"id":"no"}]`:                         "",
		`{"id"`:                                 "",
		`not json`:                              "",
	} {
		got := ""
		if p := readableID([]byte(line)); p != nil {
			got = *p
		}
		if got != want {
			t.Errorf("readableID(%s) = %q, want %q", line, got, want)
		}
	}
}
