package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// End-to-end checks of the non-interactive command line (flags, sessions,
// exit codes) against upstream-spec-core.md §1 and sessions.md.

// toolNames returns the names of the tools declared in a request.
func toolNames(t *testing.T, req llmtest.Request) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Raw, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range body.Tools {
		if tl.Name != "laya_learn" { // registered inactive by Laya; see the report on app.activeSpecs
			out = append(out, tl.Name)
		}
	}
	return out
}

func TestCLINoToolsDeclaresNoTools(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	for _, tc := range []struct {
		args []string
		want string
		warn string
	}{
		{[]string{"-nt"}, "", ""},
		{[]string{"-nbt"}, "", ""},
		{[]string{"-t", "nosuch"}, "", `Warning: unknown tool "nosuch" ignored`},
		{[]string{"-t", "read,bash", "-xt", "bash"}, "read", ""},
	} {
		n := len(e.fake.Requests())
		args := append([]string{"-p", model}, tc.args...)
		out, errOut, code := e.run(append(args, "hi")...)
		if code != 0 || out != "ok\n" {
			t.Fatalf("%v: exit %d stdout %q stderr %q", tc.args, code, out, errOut)
		}
		if !strings.Contains(errOut, tc.warn) {
			t.Errorf("%v: stderr %q, want %q", tc.args, errOut, tc.warn)
		}
		reqs := e.fake.Requests()
		if got := strings.Join(toolNames(t, reqs[n]), ","); got != tc.want {
			t.Errorf("%v: tools %q, want %q", tc.args, got, tc.want)
		}
	}
}
