package rpcmode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
)

type disposition struct {
	Disposition string `json:"disposition"`
}

var (
	started = disposition{"started"}
	queued  = disposition{"queued"}
	handled = disposition{"handled"}
)

// errStreaming is the original's text for a prompt sent during a run
// without streamingBehavior.
var errStreaming = errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")

type cancelled struct {
	Cancelled bool `json:"cancelled"`
}

func (s *Server) dispatch(c *command) (any, error) {
	rt := s.rt
	switch c.Type {
	case "prompt", "steer", "follow_up":
		if c.Message == nil {
			// Not an empty user message: a client bug the client must hear about.
			return nil, errors.New(`Missing "message": ` + c.Type + ` needs the message text as a string`)
		}
	}
	switch c.Type {
	case "prompt":
		return s.prompt(c)
	case "steer", "follow_up":
		if _, ok := extensionCommand(*c.Message); ok {
			return nil, errors.New(`Extension command "/laya" cannot be queued. Use prompt() or execute the command when not streaming.`)
		}
		if c.Type == "steer" {
			rt.Steer(*c.Message, c.Images)
		} else {
			rt.FollowUp(*c.Message, c.Images)
		}
		return queued, nil
	case "abort":
		s.abort()
		return nil, nil
	case "clear_queue":
		st, fu := rt.ClearQueue()
		return map[string][]string{"steering": texts(st), "followUp": texts(fu)}, nil
	case "new_session":
		// Like the original, a new session first stops the current run.
		s.abort()
		if err := rt.NewSession(c.ParentSession); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	case "get_state":
		return state{State: rt.State(), MessageCount: len(rt.ContextMessages())}, nil
	case "get_messages":
		msgs := rt.ContextMessages()
		if msgs == nil {
			msgs = []llm.Message{}
		}
		return map[string]llm.Messages{"messages": msgs}, nil
	case "set_model":
		m := findAvailable(s.models, c.Provider, c.ModelID)
		if m == nil {
			return nil, fmt.Errorf("Model not found: %s/%s", c.Provider, c.ModelID)
		}
		if err := rt.SetModel(m); err != nil {
			return nil, err
		}
		return rt.State().Model, nil
	case "cycle_model":
		m, level, scoped, ok := app.CycleModel(rt, s.models, true)
		if !ok {
			return nullData{}, nil
		}
		return map[string]any{"model": m, "thinkingLevel": level, "isScoped": scoped}, nil
	case "get_available_models":
		ms := s.models.Available()
		if ms == nil {
			ms = []*llm.Model{}
		}
		return map[string]any{"models": ms}, nil
	case "set_thinking_level":
		l, ok := llm.ParseThinkingLevel(c.Level)
		if !ok {
			return nil, fmt.Errorf("Invalid thinking level: %q (expected off, minimal, low, medium, high, xhigh or max)", c.Level)
		}
		return nil, rt.SetThinkingLevel(l)
	case "cycle_thinking_level":
		l, ok := app.CycleThinkingLevel(rt)
		if !ok {
			return nullData{}, nil
		}
		return map[string]any{"level": l}, nil
	case "get_available_thinking_levels":
		return map[string]any{"levels": app.ThinkingLevels(rt.State().Model)}, nil
	case "set_steering_mode", "set_follow_up_mode":
		if c.Mode != agent.ModeAll && c.Mode != agent.ModeOneAtATime {
			return nil, fmt.Errorf("Invalid mode: %q (expected \"all\" or \"one-at-a-time\")", c.Mode)
		}
		if c.Type == "set_steering_mode" {
			return nil, rt.SetRunOptions(app.RunOptions{SteeringMode: c.Mode})
		}
		return nil, rt.SetRunOptions(app.RunOptions{FollowUpMode: c.Mode})
	case "compact":
		s.compact(c)
		return nil, errAsync
	case "set_auto_compaction":
		if c.Enabled == nil {
			return nil, errors.New("set_auto_compaction requires enabled (true or false)")
		}
		return nil, rt.SetRunOptions(app.RunOptions{AutoCompaction: c.Enabled})
	case "set_auto_retry":
		if c.Enabled == nil {
			return nil, errors.New("set_auto_retry requires enabled (true or false)")
		}
		return nil, rt.SetRunOptions(app.RunOptions{AutoRetry: c.Enabled})
	case "abort_retry":
		s.abortRetry()
		return nil, nil
	case "bash":
		if strings.TrimSpace(c.Command) == "" {
			return nil, errors.New("bash requires a command")
		}
		s.bash(c)
		return nil, errAsync
	case "abort_bash":
		s.mu.Lock()
		cancel := s.bashCancel
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return nil, nil
	case "get_session_stats":
		return rpcStats(rt), nil
	case "export_html":
		if s.Export == nil {
			return nil, errors.New("export is not available")
		}
		p, err := s.Export(rt, c.OutputPath)
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": p}, nil
	case "switch_session":
		if c.SessionPath == "" {
			return nil, errors.New("switch_session requires sessionPath")
		}
		s.abort()
		if err := rt.SwitchSession(c.SessionPath); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	case "fork":
		text, err := rt.Fork(c.EntryID)
		if err != nil {
			return nil, err
		}
		return struct {
			Text      string `json:"text"`
			Cancelled bool   `json:"cancelled"`
		}{text, false}, nil
	case "clone":
		if err := rt.Clone(); err != nil {
			return nil, err
		}
		return cancelled{false}, nil
	case "get_fork_messages":
		fm := app.ForkMessages(rt.Session())
		if fm == nil {
			fm = []app.ForkMessage{}
		}
		return map[string]any{"messages": fm}, nil
	case "get_entries":
		return s.entries(c)
	case "get_tree":
		return s.tree(), nil
	case "get_last_assistant_text":
		if t, ok := lastAssistantReply(rt); ok {
			return map[string]string{"text": t}, nil
		}
		// The original answers {} (its text is undefined), so its
		// RpcClient's getLastAssistantText() yields undefined, not null.
		return struct{}{}, nil
	case "set_session_name":
		name := ""
		if c.Name != nil {
			name = strings.TrimSpace(*c.Name)
		}
		if name == "" {
			return nil, errors.New("Session name cannot be empty")
		}
		return nil, rt.SetSessionName(name)
	case "get_commands":
		return map[string]any{"commands": s.cmds.All(commands.Prompt, commands.Skill, commands.Extension)}, nil
	}
	return nil, errUnknown
}

// state is the get_state answer: the runtime's state and the number of
// messages in the context.
type state struct {
	app.State
	MessageCount int `json:"messageCount"`
}

// findAvailable looks the model up among those with credentials, as the
// original does; a model without credentials is "not found".
func findAvailable(c app.ModelCycle, provider, id string) *llm.Model {
	for _, m := range c.Available() {
		if m.Provider == provider && m.ID == id {
			return m
		}
	}
	return nil
}

// extensionCommand reports whether text invokes a command that the
// original implements as an extension (it runs at once, even during a
// run, and the prompt is "handled"): /laya.
func extensionCommand(text string) (args string, ok bool) {
	t := strings.TrimSpace(text)
	if t != "/laya" && !strings.HasPrefix(t, "/laya ") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(t, "/laya")), true
}

func (s *Server) prompt(c *command) (any, error) {
	rt := s.rt
	if args, ok := extensionCommand(*c.Message); ok {
		s.setSettled(false) // it may start a run of its own
		s.async(func() {
			out, _, err := s.cmds.Run(s.ctx, "/laya "+args)
			if err != nil {
				s.notify(err.Error(), "error")
			} else if out.Text != "" {
				s.notify(out.Text, "info")
			}
		}, func(err error) { s.notify(err.Error(), "error") })
		return handled, nil
	}
	if rt.State().IsStreaming {
		switch c.StreamingBehavior {
		case "":
			return nil, errStreaming
		case "followUp":
			rt.FollowUp(*c.Message, c.Images)
		default:
			rt.Steer(*c.Message, c.Images)
		}
		return queued, nil
	}
	if rt.State().Model == nil {
		return nil, app.ErrNoModel
	}
	s.mu.Lock()
	s.starting, s.settled = true, false
	s.flushBashLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.starting = false
		s.mu.Unlock()
	}()
	// The response goes out just before the run's first event (written by
	// Serve's subscriber), so a client reads "started" before agent_start,
	// as from the original; a prompt that fails before any event answers
	// with its error instead.
	var once sync.Once
	answer := func(data any, err error) { once.Do(func() { s.reply(c, data, err) }) }
	pending := &promptAnswer{fn: func() { answer(started, nil) }}
	s.mu.Lock()
	s.promptStarted = pending
	s.mu.Unlock()
	// The read loop waits until the run is under way (or the prompt
	// failed), so the next command sees the agent busy.
	began := make(chan struct{})
	var beganOnce sync.Once
	begin := func() { beganOnce.Do(func() { close(began) }) }
	unsub := rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.AgentStart {
			begin()
		}
	})
	// Once answered, a later error belongs to the run and shows in its
	// events; answer is a no-op then.
	fail := func(err error) {
		unsub()
		s.dropPromptAnswer(pending)
		answer(nil, err)
		begin()
	}
	s.async(func() {
		err := rt.Prompt(s.ctx, *c.Message, c.Images)
		if err == nil {
			err = errors.New("prompt finished without starting a run")
		}
		fail(err)
	}, fail)
	<-began
	return nil, errAsync
}

// abort stops the current run (and a manual compaction) and returns once
// the agent is idle.
func (s *Server) abort() {
	s.mu.Lock()
	stop := s.compactCancel
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.rt.Abort()
}

// abortRetry cancels a pending automatic retry. The agent announces
// auto_retry_start a moment before its wait begins; an abort_retry sent in
// that moment is repeated briefly until the retry ends or its run starts.
func (s *Server) abortRetry() {
	s.rt.AbortRetry()
	for i := 0; i < 100 && s.retryAnnounced(); i++ {
		time.Sleep(2 * time.Millisecond)
		s.rt.AbortRetry()
	}
}

func (s *Server) retryAnnounced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retrying
}

func (s *Server) compact(c *command) {
	// Like the original, a manual compaction first stops the current run.
	s.rt.Abort()
	ctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.compactCancel = cancel
	s.mu.Unlock()
	s.async(func() {
		defer func() {
			s.mu.Lock()
			s.compactCancel = nil
			s.mu.Unlock()
			cancel()
		}()
		res, err := s.rt.Compact(ctx, c.CustomInstructions)
		s.reply(c, res, err)
	}, func(err error) { s.reply(c, nil, err) })
}

func (s *Server) bash(c *command) {
	id := ""
	if c.ID != nil {
		id = *c.ID
	}
	s.async(func() {
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		s.bashCancel = cancel
		s.mu.Unlock()
		res, err := s.shell.Run(ctx, c.Command, c.ExcludeFromContext, func(chunk string) {
			_ = s.out.Write(agent.Event{Type: agent.BashExecutionUpdate, ID: id, Delta: chunk}, false)
		})
		s.mu.Lock()
		s.bashCancel = nil
		s.mu.Unlock()
		cancel()
		if err == nil {
			err = s.recordBash(pendingBash{command: c.Command, res: res, exclude: c.ExcludeFromContext})
		}
		s.reply(c, res, err)
	}, func(err error) { s.reply(c, nil, err) })
}

func texts(ms []llm.Message) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, agent.MessageText(m))
	}
	return out
}
