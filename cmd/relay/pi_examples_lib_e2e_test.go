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
