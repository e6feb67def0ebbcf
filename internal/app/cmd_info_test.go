package app

import (
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/export"
)

func TestSessionInfoText(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	if err := e.rt.SetSessionName("build check"); err != nil {
		t.Fatal(err)
	}
	got := e.rt.sessionInfoText()
	for _, want := range []string{
		"Session Info\n\nFile: " + e.rt.Session().SessionFile(),
		"ID: " + e.rt.Session().SessionID(),
		"Name: build check",
		"User: 2\nAssistant: 3\nTool Calls: 1\nTool Results: 1\nTotal: 6",
		"Input: 2,500\nOutput: 42\nCache Read: 5,000\nTotal: 7,542",
		"Cost\nTotal: $0.0225",
		"Context\nUsed: ",
		"/ 100,000 tokens",
		"Model: fake/m1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("session info lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Cache Write") {
		t.Error("zero cache writes should not be listed")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := export.Thousands(n); got != want {
			t.Errorf("export.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNameCommand(t *testing.T) {
	e := newCmdRuntime(t)
	if got, _ := e.rt.nameCommand(""); !strings.Contains(got, "no name") {
		t.Errorf("show without name: %q", got)
	}
	if got, err := e.rt.nameCommand("  refactor  "); err != nil || got != "Session name set: refactor" {
		t.Errorf("set: %q, %v", got, err)
	}
	if got, _ := e.rt.nameCommand(""); got != "Session name: refactor" {
		t.Errorf("show: %q", got)
	}
}

func TestChangelog(t *testing.T) {
	e := newCmdRuntime(t)
	if out, _, _ := e.rt.cmds.Run(context.Background(), "/changelog"); !strings.Contains(out.Text, "## 0.1.0") {
		got := out.Text
		t.Errorf("changelog lacks the 0.1.0 section:\n%s", got)
	}
}
