// Package rpcmode is the long-lived JSONL protocol over stdin/stdout
// (`relay --mode rpc`): commands in, responses and session events out.
package rpcmode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/jsonl"
	"github.com/relay-agent/relay/internal/llm"
)

// Server handles one RPC connection.
type Server struct {
	rt  *app.Runtime
	out *jsonl.Writer
	ctx context.Context

	// Export writes the session as HTML (nil = unsupported).
	Export func(rt *app.Runtime, outputPath string) (string, error)

	mu      sync.Mutex
	pending map[string]chan uiResponse
	nextUI  int
	runs    sync.WaitGroup
}

type uiResponse struct {
	Value     json.RawMessage `json:"value"`
	Confirmed *bool           `json:"confirmed"`
	Cancelled bool            `json:"cancelled"`
}

// command is the union of all request fields.
type command struct {
	ID                 *string            `json:"id"`
	Type               string             `json:"type"`
	Message            string             `json:"message"`
	Images             []llm.ImageContent `json:"images"`
	StreamingBehavior  string             `json:"streamingBehavior"`
	ParentSession      string             `json:"parentSession"`
	Provider           string             `json:"provider"`
	ModelID            string             `json:"modelId"`
	Level              string             `json:"level"`
	Mode               string             `json:"mode"`
	CustomInstructions string             `json:"customInstructions"`
	Enabled            *bool              `json:"enabled"`
	Command            string             `json:"command"`
	ExcludeFromContext bool               `json:"excludeFromContext"`
	OutputPath         string             `json:"outputPath"`
	SessionPath        string             `json:"sessionPath"`
	EntryID            string             `json:"entryId"`
	Since              *string            `json:"since"`
	Name               *string            `json:"name"`
	// extension_ui_response
	Value     json.RawMessage `json:"value"`
	Confirmed *bool           `json:"confirmed"`
	Cancelled bool            `json:"cancelled"`
}

type response struct {
	ID      *string `json:"id,omitempty"`
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Success bool    `json:"success"`
	Data    any     `json:"data,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// nullData marks a successful response whose data is JSON null.
type nullData struct{}

func (nullData) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// Serve reads commands from in until EOF, then waits for running work and
// returns the exit code.
func Serve(ctx context.Context, rt *app.Runtime, in io.Reader, out io.Writer, export func(*app.Runtime, string) (string, error)) int {
	s := &Server{rt: rt, out: jsonl.NewWriter(out), ctx: ctx, pending: map[string]chan uiResponse{}, Export: export}
	co := agent.NewCoalescer(16*time.Millisecond, func(e agent.Event) { _ = s.out.Write(e, e.Type != agent.MessageUpdate) })
	unsub := rt.Subscribe(co.Push)
	defer unsub()
	rt.SetApprover(s)

	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if len(bytes.TrimSpace(line)) > 0 {
				s.handle(line)
			}
		}
		if err != nil {
			break
		}
	}
	// Closing stdin is an orderly shutdown: let started work finish.
	s.runs.Wait()
	rt.Agent().WaitIdle()
	co.Flush()
	s.out.Flush()
	return 0
}

func (s *Server) reply(c *command, data any, err error) {
	r := response{ID: c.ID, Type: "response", Command: c.Type, Success: err == nil}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Data = data
	}
	_ = s.out.Write(r, true)
}

func (s *Server) handle(line []byte) {
	var c command
	if err := json.Unmarshal(line, &c); err != nil {
		_ = s.out.Write(response{Type: "response", Command: "parse", Success: false, Error: "Failed to parse command: " + err.Error()}, true)
		return
	}
	if c.Type == "extension_ui_response" {
		s.resolveUI(&c)
		return
	}
	data, err := s.dispatch(&c)
	if errors.Is(err, errAsync) {
		return
	}
	s.reply(&c, data, err)
}

var errAsync = errors.New("async")

type disposition struct {
	Disposition string `json:"disposition"`
}

func (s *Server) dispatch(c *command) (any, error) {
	rt := s.rt
	switch c.Type {
	case "prompt":
		if rt.IsStreaming() {
			switch c.StreamingBehavior {
			case "steer":
				rt.Steer(c.Message, c.Images)
				return disposition{"queued"}, nil
			case "followUp":
				rt.FollowUp(c.Message, c.Images)
				return disposition{"queued"}, nil
			}
			return nil, errors.New("Agent is already processing a prompt. Use streamingBehavior \"steer\" or \"followUp\", or the steer/follow_up commands.")
		}
		if rt.Model() == nil {
			return nil, app.ErrNoModel
		}
		s.runs.Add(1)
		began := make(chan error, 1)
		go func() {
			defer s.runs.Done()
			var once sync.Once
			signal := func(err error) { once.Do(func() { began <- err }) }
			unsub := rt.Subscribe(func(e agent.Event) {
				if e.Type == agent.AgentStart {
					signal(nil)
				}
			})
			err := rt.Prompt(s.ctx, c.Message, c.Images)
			unsub()
			if err == nil {
				err = errors.New("prompt finished without starting a run")
			}
			signal(err)
		}()
		if err := <-began; err != nil {
			return nil, err
		}
		return disposition{"started"}, nil
	case "steer":
		rt.Steer(c.Message, c.Images)
		return disposition{"queued"}, nil
	case "follow_up":
		rt.FollowUp(c.Message, c.Images)
		return disposition{"queued"}, nil
	case "abort":
		rt.Abort()
		return nil, nil
	case "clear_queue":
		st, fu := rt.Agent().ClearQueue()
		return map[string][]string{"steering": texts(st), "followUp": texts(fu)}, nil
	case "new_session":
		if err := rt.NewSession(c.ParentSession); err != nil {
			return nil, err
		}
		return map[string]bool{"cancelled": false}, nil
	case "get_state":
		return rt.State(), nil
	case "get_messages":
		msgs := rt.ContextMessages()
		if msgs == nil {
			msgs = []llm.Message{}
		}
		return map[string]llm.Messages{"messages": msgs}, nil
	case "set_model":
		m := rt.FindModel(c.Provider, c.ModelID)
		if m == nil {
			return nil, fmt.Errorf("Model not found: %s/%s", c.Provider, c.ModelID)
		}
		if err := rt.SetModel(m); err != nil {
			return nil, err
		}
		return m, nil
	case "cycle_model":
		m, level, scoped, ok := rt.CycleModel(true)
		if !ok {
			return nullData{}, nil
		}
		return map[string]any{"model": m, "thinkingLevel": level, "isScoped": scoped}, nil
	case "get_available_models":
		ms := rt.AvailableModels()
		if ms == nil {
			ms = []*llm.Model{}
		}
		return map[string]any{"models": ms}, nil
	case "set_thinking_level":
		l, ok := llm.ParseThinkingLevel(c.Level)
		if !ok {
			return nil, fmt.Errorf("Invalid thinking level: %s (expected off, minimal, low, medium, high, xhigh or max)", c.Level)
		}
		return nil, rt.SetThinkingLevel(l)
	case "cycle_thinking_level":
		l, ok := rt.CycleThinkingLevel()
		if !ok {
			return nullData{}, nil
		}
		return map[string]any{"level": l}, nil
	case "get_available_thinking_levels":
		return map[string]any{"levels": rt.AvailableThinkingLevels()}, nil
	case "set_steering_mode", "set_follow_up_mode":
		if c.Mode != agent.ModeAll && c.Mode != agent.ModeOneAtATime {
			return nil, fmt.Errorf("Invalid mode: %s (expected \"all\" or \"one-at-a-time\")", c.Mode)
		}
		if c.Type == "set_steering_mode" {
			rt.Agent().SetSteeringMode(c.Mode)
		} else {
			rt.Agent().SetFollowUpMode(c.Mode)
		}
		return nil, nil
	case "compact":
		return rt.Compact(s.ctx, c.CustomInstructions)
	case "set_auto_compaction":
		if c.Enabled == nil {
			return nil, errors.New("set_auto_compaction requires enabled")
		}
		rt.SetAutoCompaction(*c.Enabled)
		return nil, nil
	case "set_auto_retry":
		if c.Enabled == nil {
			return nil, errors.New("set_auto_retry requires enabled")
		}
		rt.Agent().SetAutoRetry(*c.Enabled)
		return nil, nil
	case "abort_retry":
		rt.Agent().AbortRetry()
		return nil, nil
	case "bash":
		id := ""
		if c.ID != nil {
			id = *c.ID
		}
		s.runs.Add(1)
		go func() {
			defer s.runs.Done()
			res, err := rt.Bash(s.ctx, c.Command, c.ExcludeFromContext, func(chunk string) {
				_ = s.out.Write(agent.Event{Type: agent.BashExecutionUpdate, ID: id, Delta: chunk}, false)
			})
			s.reply(c, res, err)
		}()
		return nil, errAsync
	case "abort_bash":
		rt.AbortBash()
		return nil, nil
	case "get_session_stats":
		return rt.Stats(), nil
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
		if err := rt.SwitchSession(c.SessionPath); err != nil {
			return nil, err
		}
		return map[string]bool{"cancelled": false}, nil
	case "fork":
		text, err := rt.Fork(c.EntryID)
		if err != nil {
			return nil, err
		}
		return map[string]any{"text": text, "cancelled": false}, nil
	case "clone":
		if err := rt.Clone(); err != nil {
			return nil, err
		}
		return map[string]bool{"cancelled": false}, nil
	case "get_fork_messages":
		fm := rt.ForkMessages()
		if fm == nil {
			fm = []app.ForkMessage{}
		}
		return map[string]any{"messages": fm}, nil
	case "get_entries":
		return s.entries(c)
	case "get_tree":
		return s.tree(), nil
	case "get_last_assistant_text":
		if a := rt.LastAssistant(); a != nil {
			t := a.Text()
			return map[string]*string{"text": &t}, nil
		}
		return map[string]*string{"text": nil}, nil
	case "set_session_name":
		if c.Name == nil {
			return nil, errors.New("set_session_name requires name")
		}
		return nil, rt.SetSessionName(*c.Name)
	case "get_commands":
		return map[string]any{"commands": rt.ResourceCommands()}, nil
	case "":
		return nil, errors.New("Missing command type")
	}
	return nil, fmt.Errorf("Unknown command: %s", c.Type)
}

func texts(ms []llm.Message) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, agent.MessageText(m))
	}
	return out
}
