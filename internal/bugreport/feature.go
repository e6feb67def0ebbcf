// Package bugreport is /bug and /debug: a redacted zip report for the relay
// developers and a log of what the next request would carry. It registers
// on the runtime's command registry and reads the runtime through its
// public surface only.
package bugreport

import (
	"context"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tool"
)

// Options are what the reports need beyond the runtime.
type Options struct {
	Cwd, AgentDir string
	Env           config.Env
	Version       string
	// AuthSource names where a provider's credential comes from (auth.json,
	// environment, ...); nil leaves it out of the report.
	AuthSource func(provider string) string
	// Active is the runtime's tool selection, listed in the report.
	Active *tool.Active
	Now    func() time.Time // nil: time.Now
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Feature writes the reports of one runtime.
type Feature struct {
	rt   *app.Runtime
	seam *hooks.Set
	o    Options
}

// Register adds /bug and /debug to cmds and returns the feature for
// front ends that ask for the report's options in a dialog. seam tells
// the report whether a tool_call gate (the harness core) is on.
func Register(rt *app.Runtime, seam *hooks.Set, cmds *commands.Registry, o Options) (*Feature, error) {
	f := &Feature{rt: rt, seam: seam, o: o}
	for _, c := range []commands.Command{
		{Name: "bug", Description: "Write a bug report zip [description]", Run: func(ctx context.Context, arg string) (commands.Output, error) {
			res, err := f.Write(ctx, Request{Description: arg, Transcript: TranscriptOmit})
			if err != nil {
				return commands.Output{}, err
			}
			return commands.Output{Text: res.Text()}, nil
		}},
		{Name: "debug", Description: "Write relay-debug.log", Run: func(context.Context, string) (commands.Output, error) {
			p, err := f.WriteDebugLog()
			if err != nil {
				return commands.Output{}, err
			}
			return commands.Output{Text: "Debug log written to: " + p}, nil
		}},
	} {
		c.Source = commands.Builtin
		if err := cmds.Register(c); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Report is the TUI's /bug dialog entry: transcript is "omit", "include"
// or "summary".
func (f *Feature) Report(ctx context.Context, description, transcript string) (string, error) {
	res, err := f.Write(ctx, Request{Description: description, Transcript: Transcript(transcript)})
	if err != nil {
		return "", err
	}
	return res.Text(), nil
}

// Notes are the texts the /bug dialog shows: what the report holds, what a
// transcript holds, and where a summary is computed.
func (f *Feature) Notes() (disclaimer, transcript, summary string) {
	return Disclaimer, TranscriptNote, SummaryNote
}
