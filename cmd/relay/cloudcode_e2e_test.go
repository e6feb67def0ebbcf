package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// The Google subscriptions end to end: a stored sign-in (as /login
// google-gemini-cli or google-antigravity writes it) whose Cloud Code
// Assist origin is the fake; relay -p runs a signed thinking tool call and
// answers.
func TestCloudCodeAssistEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		provider, model string
		check           func(t *testing.T, first llmtest.Request)
	}{
		{"google-gemini-cli", "gemini-2.5-flash", func(t *testing.T, r llmtest.Request) {
			if r.Header.Get("User-Agent") != "google-cloud-sdk vscode_cloudshelleditor/0.1" || r.Header.Get("X-Goog-Api-Client") != "gl-node/22.17.0" ||
				r.Body["userAgent"] != "relay" || r.Body["requestType"] != nil {
				t.Errorf("gemini cli request %v %v", r.Header, r.Body)
			}
			in := r.Body["request"].(map[string]any)
			if tc := in["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any); tc["thinkingBudget"] != 2048.0 || tc["includeThoughts"] != true {
				t.Errorf("thinking config %v", tc)
			}
		}},
		{"google-antigravity", "gemini-3-flash", func(t *testing.T, r llmtest.Request) {
			if r.Header.Get("User-Agent") != "antigravity/2.0.1" || r.Body["userAgent"] != "antigravity" || r.Body["requestType"] != "agent" {
				t.Errorf("antigravity request %v %v", r.Header, r.Body)
			}
			in := r.Body["request"].(map[string]any)
			if tc := in["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any); tc["thinkingLevel"] != "LOW" {
				t.Errorf("thinking config %v", tc)
			}
			if in["systemInstruction"].(map[string]any)["role"] != "user" {
				t.Errorf("system instruction %v", in["systemInstruction"])
			}
		}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
				{Content: []llmtest.Block{
					{Type: "thinking", Text: "I should read the note.", Signature: "c2lnbmVkLXRob3VnaHQ="},
					{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"note.txt"}`), Signature: "c2lnbmVkLWNhbGw="}},
					Usage: &llmtest.Usage{Input: 120, Output: 30, Reasoning: 12}},
				{Text: "The note says hello from cloud code.", Usage: &llmtest.Usage{Input: 200, Output: 9}},
			}}, nil)
			os.WriteFile(filepath.Join(e.cwd, "note.txt"), []byte("hello from the note file"), 0o644)
			os.WriteFile(filepath.Join(e.agentDir, "auth.json"), []byte(fmt.Sprintf(
				`{%q:{"type":"oauth","access":"ya29.valid","refresh":"1//rt","expires":%d,"projectId":"proj-e2e","baseUrl":%q}}`,
				tc.provider, time.Now().Add(time.Hour).UnixMilli(), e.fake.URL)), 0o600)

			c := e.cmd(nil, "-p", "--no-session", "--model", tc.provider+"/"+tc.model, "--thinking", "low", "what does note.txt say?")
			c.Env = append(c.Env, "RELAY_AI_ANTIGRAVITY_VERSION=2.0.1", "GOOGLE_CLOUD_PROJECT=")
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			if err := c.Run(); err != nil {
				t.Fatalf("%v\nstdout %s\nstderr %s", err, out.String(), errb.String())
			}
			if strings.TrimSpace(out.String()) != "The note says hello from cloud code." {
				t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
			}
			reqs := e.fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			for i, r := range reqs {
				if r.Path != "/v1internal:streamGenerateContent" || r.RawQuery != "alt=sse" || r.Header.Get("Authorization") != "Bearer ya29.valid" ||
					r.Header.Get("X-Goog-User-Project") != "" || r.Body["project"] != "proj-e2e" || r.Body["model"] != tc.model {
					t.Fatalf("request %d: %s?%s %v project %v model %v", i, r.Path, r.RawQuery, r.Header, r.Body["project"], r.Body["model"])
				}
			}
			tc.check(t, reqs[0])
			second := string(reqs[1].Raw)
			for _, want := range []string{`"thoughtSignature":"c2lnbmVkLXRob3VnaHQ="`, `"thoughtSignature":"c2lnbmVkLWNhbGw="`,
				`"functionResponse"`, "hello from the note file"} {
				if !strings.Contains(second, want) {
					t.Errorf("second request lacks %s: %.800s", want, second)
				}
			}
		})
	}
}
