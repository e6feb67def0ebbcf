package tui

import (
	"context"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Run starts the interactive UI and returns when the user quits.
func Run(ctx context.Context, rt Runtime, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, rt, o)
	unsub := rt.Subscribe(m.Deliver)
	defer unsub()
	if o.Notices != nil {
		defer o.Notices(m.Notify)()
	}
	if o.Shown != nil {
		defer o.Shown(m.Show)()
	}
	if o.Approver != nil {
		defer o.Approver.Close()
	}
	p := tea.NewProgram(m, programOptions(ctx, o)...)
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if err == nil && m.fullscreen {
		out := o.Output
		if out == nil {
			out = os.Stdout
		}
		io.WriteString(out, m.ExitOutput())
	}
	return err
}

// ExitOutput is what fullscreen mode leaves on the normal screen
// (fullscreenExitOutput): the transcript, or a hint to resume.
func (m *Model) ExitOutput() string {
	// The normal screen gets images drawn in place; the placeholders'
	// images are deleted first.
	img := m.opts.Images
	img.Placeholders = false
	m.tr.SetImages(img)
	del := m.tr.TakeImageCommands()
	if m.opts.FullscreenExitOutput == "resume-hint" {
		in := m.rt.Info() // the program has exited: no update loop to block
		if in.SessionFile == "" {
			return del
		}
		return del + "Resume this session with: relay --session " + in.SessionID + "\n"
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	lines := m.tr.TakeCommitted(w)
	if len(lines) == 0 {
		return del
	}
	return del + strings.Join(lines, "\n") + "\n"
}

func programOptions(ctx context.Context, o Options) []tea.ProgramOption {
	// 120 frames a second: the first frame and every echoed key reach the
	// terminal within ~8 ms instead of ~16.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(120)}
	if o.TrueColor != nil {
		p := colorprofile.ANSI256
		if *o.TrueColor {
			p = colorprofile.TrueColor
		}
		opts = append(opts, tea.WithColorProfile(p))
	}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	if o.WindowSize[0] > 0 {
		opts = append(opts, tea.WithWindowSize(o.WindowSize[0], o.WindowSize[1]))
	}
	if o.NoSignals {
		opts = append(opts, tea.WithoutSignalHandler())
	}
	return opts
}
