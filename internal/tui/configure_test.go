package tui_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func TestLoginLogout(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 70, 16)
	d.Type("/login")
	d.Press("escape", "enter")
	if !strings.Contains(d.Frame(), "Log in to a provider") {
		t.Fatalf("no provider list:\n%s", d.Frame())
	}
	d.Press("down", "enter")
	d.Type("sk-secret")
	if strings.Contains(d.Frame(), "sk-secret") || !strings.Contains(d.Frame(), "•••••••••") {
		t.Fatalf("key not masked:\n%s", d.Frame())
	}
	d.Press("enter")
	if !hasCall(f, "Login openai-codex sk-secret") {
		t.Fatalf("calls %v", f.CallLog())
	}
	d.Type("/logout")
	d.Press("escape", "enter", "enter")
	if !hasCall(f, "Logout anthropic") {
		t.Fatalf("calls %v", f.CallLog())
	}
}

// TestLoginSubscription: /login on a provider with a subscription sign-in
// runs the registered command, shows its page and code, and sends what
// is pasted back to it.
func TestLoginSubscription(t *testing.T) {
	f := tuitest.NewFake()
	f.SignIns = map[string]bool{"openai-codex": true}
	var mu sync.Mutex
	var ran []string
	o := opts()
	o.OnCommand = func(_ context.Context, name, args string) (string, error) {
		mu.Lock()
		ran = append(ran, name+" "+args)
		mu.Unlock()
		if args == "openai-codex" {
			return "Sign in to OpenAI\nhttps://auth.example/authorize?x=1\nTo paste the code or redirect URL: /login openai-codex <code>", nil
		}
		return "Signed in to OpenAI", nil
	}
	d := start(t, f, o, 90, 20)
	d.Type("/login openai-codex")
	d.Press("enter")
	if fr := d.Frame(); !strings.Contains(fr, "Sign in with a subscription") || !strings.Contains(fr, "Enter an API key") {
		t.Fatalf("no choice between a subscription and a key:\n%s", fr)
	}
	d.Press("enter")
	if fr := d.Frame(); !strings.Contains(fr, "https://auth.example/authorize") || !strings.Contains(fr, "Paste the code") {
		t.Fatalf("no sign-in page or paste input:\n%s", fr)
	}
	d.Type("http://localhost:1455/auth/callback?code=c&state=s")
	d.Press("enter")
	if out := d.Frame() + strings.Join(d.Printed, "\n"); !strings.Contains(out, "Signed in to OpenAI") || !strings.Contains(out, "https://auth.example/authorize") {
		t.Fatalf("no confirmation or page in the transcript:\n%s", out)
	}
	mu.Lock()
	got := append([]string(nil), ran...)
	mu.Unlock()
	if len(got) != 2 || got[0] != "login openai-codex" || got[1] != "login openai-codex http://localhost:1455/auth/callback?code=c&state=s" {
		t.Fatalf("ran %q", got)
	}
	if hasCall(f, "Login") {
		t.Fatalf("asked for an API key: %v", f.CallLog())
	}
	// The other way in is still a key; and "/login p <more>" goes to the
	// command as typed.
	d.Type("/login openai-codex")
	d.Press("enter", "down", "enter")
	d.Type("sk-key")
	d.Press("enter")
	if !hasCall(f, "Login openai-codex sk-key") {
		t.Fatalf("calls %v", f.CallLog())
	}
	d.Type("/login openai-codex device_code")
	d.Press("enter")
	mu.Lock()
	defer mu.Unlock()
	if ran[len(ran)-1] != "login openai-codex device_code" {
		t.Fatalf("ran %q", ran)
	}
}

func TestSaveModelAndThinking(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 70, 16)
	d.Press("ctrl+l", "down", "ctrl+s")
	d.Type("/thinking")
	d.Press("escape", "enter", "down", "ctrl+s")
	saved := f.SavedSettings()
	if saved["defaultModel"] != "openai-codex/gpt-6-luna" || saved["defaultThinkingLevel"] != "high" {
		t.Fatalf("saved %v", saved)
	}
}

func TestScopedModels(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 80, 16)
	d.Type("/scoped-models")
	d.Press("escape", "enter")
	if !strings.Contains(d.Frame(), "[x] anthropic/claude-sonnet-5-5") {
		t.Fatalf("all enabled by default:\n%s", d.Frame())
	}
	d.Press("ctrl+x") // clear all
	d.Press("down", "enter")
	d.Press("alt+up") // move gpt-6-luna first
	d.Press("ctrl+s")
	if got, _ := f.SavedSettings()["enabledModels"].([]string); !slices.Equal(got, []string{"openai-codex/gpt-6-luna"}) {
		t.Fatalf("saved %v", f.SavedSettings())
	}
}

func TestSettingsToggle(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 80, 24)
	d.Type("/settings")
	d.Press("escape", "enter")
	if !strings.Contains(d.Frame(), "hideThinkingBlock") {
		t.Fatalf("settings list:\n%s", d.Frame())
	}
	d.Type("hideThinking")
	d.Press("enter")
	if f.SavedSettings()["hideThinkingBlock"] != true {
		t.Fatalf("saved %v", f.SavedSettings())
	}
	if !strings.Contains(d.Frame(), "hideThinkingBlock  true") {
		t.Fatalf("value not updated:\n%s", d.Frame())
	}
}

func TestBugDialog(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 70, 16)
	d.Type("/bug it crashed")
	d.Press("enter")
	if !strings.Contains(d.Frame(), "The report is a zip archive.") {
		t.Fatalf("no dialog:\n%s", d.Frame())
	}
	d.Press("down", "enter")
	if !hasCall(f, "BugReport it crashed include") {
		t.Fatalf("calls %v", f.CallLog())
	}
}

// Settings the running UI cannot switch (tuiMode) say they apply on the
// next start instead of silently doing nothing.
func TestSettingsRestartNote(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 100, 24)
	d.Type("/settings")
	d.Press("escape", "enter")
	d.Type("tuiMode")
	d.Press("enter")
	if fr := d.Frame(); !strings.Contains(fr, "takes effect the next time relay starts") {
		t.Fatalf("no restart note:\n%s", fr)
	}
}

// /settings shows values in one column (defaults for unset keys) and the
// selected setting's description.
func TestSettingsAlignedWithDescriptions(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 100, 40)
	d.Type("/settings")
	d.Press("escape", "enter")
	fr := d.Frame()
	col := map[string]int{}
	for _, l := range strings.Split(fr, "\n") {
		for _, kv := range [][2]string{{"theme", "system"}, {"hideThinkingBlock", "false"}, {"autocompleteMaxVisible", "5"}} {
			if strings.HasPrefix(strings.TrimLeft(l, " ›"), kv[0]+" ") {
				i := strings.Index(l, "  "+kv[1])
				if i < 0 {
					t.Errorf("%s row shows no %q: %q", kv[0], kv[1], l)
					continue
				}
				col[kv[0]] = len([]rune(l[:i]))
			}
		}
	}
	if len(col) != 3 || col["theme"] != col["hideThinkingBlock"] || col["theme"] != col["autocompleteMaxVisible"] {
		t.Errorf("value columns %v:\n%s", col, fr)
	}
	if !strings.Contains(fr, "Built-in or custom theme name") {
		t.Errorf("no description for the selected setting:\n%s", fr)
	}
	d.Press("down")
	if !strings.Contains(d.Frame(), "Hide thinking blocks in the transcript") {
		t.Errorf("description does not follow the selection:\n%s", d.Frame())
	}
}

// markdown.mermaid applies at once: switched off, a drawn diagram shows
// its source again.
func TestSettingsMermaidLive(t *testing.T) {
	f := tuitest.NewFake()
	f.Reply = func(string) []agent.Event {
		a := &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: "```mermaid\ngraph LR\n  A --> B\n```"}}}
		return []agent.Event{{Type: agent.MessageStart, Message: a}, {Type: agent.MessageEnd, Message: a}}
	}
	o := opts()
	o.Fullscreen = true
	o.Mermaid = "streaming"
	d := start(t, f, o, 80, 30)
	d.Type("draw")
	d.Press("enter")
	d.Settle()
	if fr := d.Frame(); !strings.Contains(fr, "│ A ├") || strings.Contains(fr, "A --> B") {
		t.Fatalf("not drawn:\n%s", fr)
	}
	d.Type("/settings")
	d.Press("escape", "enter")
	d.Type("mermaid")
	d.Press("enter", "enter") // streaming -> final -> off
	d.Press("escape")
	if fr := d.Frame(); !strings.Contains(fr, "A --> B") {
		t.Errorf("off: source not shown:\n%s", fr)
	}
	if f.SavedSettings()["markdown.mermaid"] != "off" {
		t.Errorf("saved %v", f.SavedSettings())
	}
}
