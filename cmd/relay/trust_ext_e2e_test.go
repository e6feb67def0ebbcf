package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// project_trust: user and -e extensions load before the trust decision
// and may take it; the project's extensions load only once trusted.
func TestProjectTrustEvent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		verdict   string // "" = no verdict file (undecided)
		args      []string
		def       string // defaultProjectTrust
		viaDir    bool   // the trust extension lives in the agent dir's extensions/
		offInProj bool   // it comes from a user package the project's settings narrow to no extension
		loaded    bool   // proj_tool declared
		asked     bool
		remember  bool
		wantError string
	}{
		{name: "yes loads the project", verdict: "yes", loaded: true, asked: true},
		{name: "no beats defaultProjectTrust always", verdict: "no", def: "always", asked: true},
		{name: "undecided falls to the default (ask skips in json mode)", asked: true},
		{name: "undecided falls to always", def: "always", loaded: true, asked: true},
		{name: "remember saves the decision", verdict: "yes remember", loaded: true, asked: true, remember: true},
		{name: "a user extension of the agent dir decides", verdict: "yes", viaDir: true, loaded: true, asked: true},
		{name: "the project turns the deciding extension off", verdict: "yes", offInProj: true, loaded: true, asked: true},
		{name: "approve flag first: the handler is not asked", verdict: "no", args: []string{"--approve"}, loaded: true},
		{name: "a failing handler is reported and undecided", verdict: "throw", def: "always", loaded: true, asked: true,
			wantError: "trust handler failed on purpose"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := map[string]any{}
			if tc.def != "" {
				settings["defaultProjectTrust"] = tc.def
			}
			e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, settings)
			projExt := filepath.Join(e.cwd, ".relay", "extensions")
			if err := os.MkdirAll(projExt, 0o755); err != nil {
				t.Fatal(err)
			}
			src, _ := os.ReadFile(extPath(t, "projtool.ts"))
			if err := os.WriteFile(filepath.Join(projExt, "projtool.ts"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.verdict != "" {
				os.WriteFile(filepath.Join(e.cwd, "trust-verdict"), []byte(tc.verdict), 0o644)
			}
			args := append([]string{"--mode", "json", model}, tc.args...)
			switch {
			case tc.offInProj:
				pkg := filepath.Join(t.TempDir(), "trustpkg")
				os.MkdirAll(filepath.Join(pkg, "extensions"), 0o755)
				src, _ := os.ReadFile(extPath(t, "trust.ts"))
				os.WriteFile(filepath.Join(pkg, "extensions", "trust.ts"), src, 0o644)
				settings["packages"] = []string{pkg}
				b, _ := json.Marshal(settings)
				os.WriteFile(filepath.Join(e.agentDir, "settings.json"), b, 0o644)
				off, _ := json.Marshal(map[string]any{"packages": []any{map[string]any{"source": pkg, "extensions": []string{}}}})
				os.WriteFile(filepath.Join(e.cwd, ".relay", "settings.json"), off, 0o644)
			case tc.viaDir:
				dir := filepath.Join(e.agentDir, "extensions")
				os.MkdirAll(dir, 0o755)
				src, _ := os.ReadFile(extPath(t, "trust.ts"))
				os.WriteFile(filepath.Join(dir, "trust.ts"), src, 0o644)
			default:
				args = append(args, "-e", extPath(t, "trust.ts"))
			}
			out, errOut, code := e.run(append(args, "go")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			reqs := e.fake.Requests()
			if len(reqs) == 0 {
				t.Fatalf("no request; stderr %s", errOut)
			}
			if got := strings.Contains(string(reqs[0].Raw), `"proj_tool"`); got != tc.loaded {
				t.Errorf("project extension loaded = %v, want %v (stderr %s)", got, tc.loaded, errOut)
			}
			if got := strings.Contains(string(reqs[0].Raw), `"trust_probe"`); got == tc.offInProj {
				t.Errorf("trust extension's tool declared = %v with the project turning it off = %v", got, tc.offInProj)
			}
			asked, _ := os.ReadFile(filepath.Join(e.cwd, "trust-asked"))
			if tc.asked && string(asked) != "json false\n" {
				t.Errorf("trust-asked = %q, want the user extension asked once in json mode", asked)
			}
			if !tc.asked && len(asked) != 0 {
				t.Errorf("handler asked: %q", asked)
			}
			trust, _ := os.ReadFile(filepath.Join(e.agentDir, "trust.json"))
			if got := strings.Contains(string(trust), filepath.Base(e.cwd)); got != tc.remember {
				t.Errorf("trust.json has the project = %v, want %v: %s", got, tc.remember, trust)
			}
			if tc.wantError != "" && !strings.Contains(errOut, tc.wantError) {
				t.Errorf("stderr does not report the failing handler: %s", errOut)
			}
			_ = out
		})
	}
}
