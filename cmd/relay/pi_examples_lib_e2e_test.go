package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// pi's examples that use the API module's values when they load or run
// (Key.ctrlAlt and Key.ctrlShift shortcuts, CustomEditor subclasses,
// BorderedLoader and complete, SettingsList, SelectList, Markdown,
// parseFrontmatter, convertToLlm): loaded together, unchanged, with no
// warning and no extension error.
func TestPiExamplesUsingTheLibraryLoad(t *testing.T) {
	names := []string{"plan-mode", "preset.ts", "modal-editor.ts", "rainbow-editor.ts", "qna.ts", "handoff.ts", "summarize.ts",
		"tools.ts", "questionnaire.ts", "custom-compaction.ts", "snake.ts"}
	args := []string{"--mode", "json", model}
	for _, n := range names {
		args = append(args, "-e", piExample(t, n))
	}
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	out, errOut, code := e.run(append(args, "hi")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "Warning") || strings.Contains(errOut, "extension") {
		t.Errorf("loading pi's examples warned:\n%s", errOut)
	}
	for _, ev := range eventsOf(out, "extension_error") {
		t.Errorf("extension error: %v", ev)
	}
}

// Tools built with createReadTool and createBashTool run relay's built-ins
// in a real run: the model calls them, the wrapper's additions and the
// spawnHook's variable show in the results.
func TestExtensionToolsFromBuiltinFactories(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		toolCall("r1", "counted_read", `{"path":"notes.txt"}`),
		toolCall("b1", "hooked_bash", `{"command":"echo hook=$PI_SPAWN_HOOK session=${RELAY_SESSION_ID:+set}"}`),
		{Text: "done"},
	}}, nil)
	if err := os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run("--mode", "json", model, "-e", extPath(t, "wrapread.ts"), "look")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ends := toolEnds(out)
	if got := ends["counted_read#r1"]; !strings.Contains(got, "one\ntwo") || !strings.HasSuffix(got, "lines]") {
		t.Errorf("counted_read = %q", got)
	}
	// The built-in's environment is relay's (the session's variables), plus
	// the hook's.
	if got := strings.TrimSpace(ends["hooked_bash#b1"]); got != "hook=1 session=set" {
		t.Errorf("hooked_bash = %q", got)
	}
	for _, ev := range eventsOf(out, "extension_error") {
		t.Errorf("extension error: %v", ev)
	}
}

// pi's examples that replace the built-in tools with wrappers calling the
// originals through createReadTool / createBashTool / ... (renderers,
// minimal display, SSH delegation when --ssh is given, a bash spawnHook),
// unchanged: the model's read and bash reach relay's built-ins through
// them, with no warning and no extension error.
func TestPiExamplesWrappingBuiltins(t *testing.T) {
	for _, tc := range []struct {
		name, bashWant string
	}{
		{"built-in-tool-renderer.ts", "hook="},
		{"minimal-mode.ts", "hook="},
		{"ssh.ts", "hook="},
		// bash-spawn-hook.ts sets PI_SPAWN_HOOK=1 in its spawnHook.
		{"bash-spawn-hook.ts", "hook=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ext := piExample(t, tc.name)
			e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
				toolCall("r1", "read", `{"path":"notes.txt"}`),
				toolCall("b1", "bash", `{"command":"echo hook=$PI_SPAWN_HOOK"}`),
				{Text: "done"},
			}}, nil)
			if err := os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := e.run("--mode", "json", model, "-e", ext, "look")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "Warning") {
				t.Errorf("warned:\n%s", errOut)
			}
			ends := toolEnds(out)
			if got := ends["read#r1"]; got != "alpha\nbeta\n" {
				t.Errorf("read = %q", got)
			}
			if got := ends["bash#b1"]; !strings.Contains(got, tc.bashWant+"\n") && !strings.HasSuffix(got, tc.bashWant) {
				t.Errorf("bash = %q, want %q", got, tc.bashWant)
			}
			for _, ev := range eventsOf(out, "extension_error") {
				t.Errorf("extension error: %v", ev)
			}
		})
	}
}
