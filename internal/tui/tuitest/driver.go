package tuitest

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

// Driver runs a model the way bubbletea does: every command runs in its
// own goroutine and its message is fed back to Update. Settle processes
// messages until the model has been quiet for a short while; commands
// that block (the event subscription) simply wait in their goroutines.
type Driver struct {
	M    tea.Model
	msgs chan tea.Msg
	Quit bool
	// Printed collects tea.Println output (regular mode scrollback).
	Printed []string
}

// NewDriver starts the model: Init runs and a window size is sent.
func NewDriver(m tea.Model, width, height int) *Driver {
	d := &Driver{M: m, msgs: make(chan tea.Msg, 1024)}
	d.run(m.Init())
	d.Send(tea.WindowSizeMsg{Width: width, Height: height})
	return d
}

func (d *Driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

// Send delivers a message and settles.
func (d *Driver) Send(msg tea.Msg) {
	d.handle(msg)
	d.Settle()
}

func (d *Driver) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		d.Quit = true
		return
	}
	if cmds, ok := sequenceCmds(msg); ok {
		// tea.Sequence: the commands run one after the other, their
		// messages queued in that order.
		go func() {
			for _, c := range cmds {
				if c == nil {
					continue
				}
				if m := c(); m != nil {
					d.msgs <- m
				}
			}
		}()
		return
	}
	// tea.Println produces an unexported message; record it by its text.
	if s, ok := printed(msg); ok {
		d.Printed = append(d.Printed, s)
		return
	}
	m, cmd := d.M.Update(msg)
	d.M = m
	d.run(cmd)
}

// printed recognises bubbletea's print-line message by its shape.
func printed(msg tea.Msg) (string, bool) {
	type stringer interface{ String() string }
	name := strings.TrimPrefix(typeName(msg), "tea.")
	if name != "printLineMessage" {
		return "", false
	}
	if s, ok := msg.(stringer); ok {
		return s.String(), true
	}
	return extractField(msg), true
}

// Settle feeds messages until none arrives for 25ms (at most 3s).
func (d *Driver) Settle() {
	deadline := time.After(3 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
		case <-time.After(25 * time.Millisecond):
			return
		case <-deadline:
			return
		}
	}
}

// SendUntil delivers msg, then handles messages until one that match
// accepts has been handled, and settles; it reports false when none came
// within 30 s. Tests of timers use it: on a loaded machine a timer's
// message may come long after Settle's quiet period.
func (d *Driver) SendUntil(msg tea.Msg, match func(tea.Msg) bool) bool {
	d.handle(msg)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
			if match(msg) {
				d.Settle()
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// Type sends each rune as a key press.
func (d *Driver) Type(s string) {
	for _, r := range s {
		d.handle(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.Settle()
}

// Press sends keys in the spec syntax ("enter", "ctrl+p", "pageUp"),
// settling after each like a person typing.
func (d *Driver) Press(keys ...string) {
	for _, s := range keys {
		d.handle(Key(s))
		d.Settle()
	}
}

// Key builds the press of a key in spec syntax.
func Key(s string) tea.KeyPressMsg {
	k := keymap.MustParse(s)
	var m tea.KeyMod
	if k.Mod&keymap.Ctrl != 0 {
		m |= tea.ModCtrl
	}
	if k.Mod&keymap.Alt != 0 {
		m |= tea.ModAlt
	}
	if k.Mod&keymap.Shift != 0 {
		m |= tea.ModShift
	}
	if k.Mod&keymap.Super != 0 {
		m |= tea.ModSuper
	}
	msg := tea.KeyPressMsg{Code: k.Code, Mod: m}
	if m == 0 && k.Code < 0x7f && k.Code >= 0x20 {
		msg.Text = string(k.Code)
	}
	return msg
}

// Frame is the current view as plain text, trailing spaces trimmed.
func (d *Driver) Frame() string {
	v := d.M.View()
	lines := strings.Split(ansi.Strip(v.Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
