// Package modetest checks what every front end owes extensions.
package modetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

type noModels struct{}

func (noModels) Client(*llm.Model) (llm.Client, error) { return nil, errors.New("no client") }
func (noModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "", nil, nil
}
func (noModels) Find(string, string) *llm.Model { return nil }
func (noModels) Available() []*llm.Model        { return nil }

// RunMode is a front end's entry point (printmode.Run, jsonmode.Run).
type RunMode func(ctx context.Context, rt *app.Runtime, inputs []app.Input, stdout, stderr io.Writer) int

// CheckNoUIBound runs a command through run and checks the mode attaches
// no UI: an extension sees hasUI false and its dialogs get the documented
// defaults (hooks.Headless) without waiting.
func CheckNoUIBound(t *testing.T, run RunMode) {
	t.Helper()
	reg := commands.New()
	hs := hooks.New()
	var bound hooks.UI
	var answered, ran bool
	if err := reg.Register(commands.Command{Name: "probe", Source: commands.Extension,
		Run: func(ctx context.Context, _ string) (commands.Output, error) {
			ran, bound = true, hs.UI()
			ui := bound
			if ui == nil {
				ui = hooks.Headless{}
			}
			ok, err := ui.Confirm(ctx, "Proceed?", "")
			_, picked, _ := ui.Select(ctx, "Pick", []string{"a"})
			answered = !ok && !picked && err == nil
			return commands.Output{Text: "probed"}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	rt, err := app.New(app.Config{Cwd: t.TempDir(), Session: session.InMemory(t.TempDir()), Models: noModels{}, Hooks: hs, Commands: reg})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), rt, []app.Input{{Text: "/probe"}}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !ran {
		t.Fatalf("command did not run: %q", out.String())
	}
	if bound != nil {
		t.Errorf("a UI is bound in this mode: %T", bound)
	}
	if !answered {
		t.Error("dialogs did not resolve to their defaults")
	}
}
