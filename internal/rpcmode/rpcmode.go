// Package rpcmode is the long-lived JSONL protocol over stdin/stdout
// (`relay --mode rpc`): commands in, responses and session events out.
//
// Stdout carries protocol records only. Commands are read one line at a
// time (LF-framed, one trailing CR stripped; U+2028/U+2029 are ordinary
// characters). Work that takes long (a prompt's run, bash, compaction, an
// extension command) runs off the read loop, so the loop can always take
// abort, queue commands and extension_ui_response answers.
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
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/jsonl"
	"github.com/relay-agent/relay/internal/llm"
)

// Options are what the server needs besides the runtime.
type Options struct {
	// Hooks and Commands are the seam and the command registry the runtime
	// was built with (nil: empty ones).
	Hooks    *hooks.Set
	Commands *commands.Registry
	// Models are the runtime's models and the scope cycle_model goes
	// through.
	Models app.ModelCycle
	// Shell runs the bash command.
	Shell app.UserShell
	// Export writes the session as HTML (nil = unsupported).
	Export func(rt *app.Runtime, outputPath string) (string, error)
}

// Server handles one RPC connection.
type Server struct {
	rt     *app.Runtime
	seam   *hooks.Set
	cmds   *commands.Registry
	models app.ModelCycle
	shell  app.UserShell
	out    *jsonl.Writer
	ctx    context.Context

	// Export writes the session as HTML (nil = unsupported).
	Export func(rt *app.Runtime, outputPath string) (string, error)

	mu      sync.Mutex
	pending map[string]chan uiResponse
	nextUI  int
	closed  bool // stdin reached EOF: dialogs can no longer be answered
	// compactCancel stops a running manual compaction (abort).
	compactCancel context.CancelFunc
	// bashCancel stops the running bash command (abort_bash).
	bashCancel context.CancelFunc
	// bashPending holds bashExecution results that finished while a run
	// was active; they are stored once the agent settles.
	bashPending []pendingBash
	// starting is set while a prompt is being handed to the agent, so a
	// bash result does not land between the prompt and its run.
	starting bool
	// settled is set once agent_settled is emitted: the run is winding
	// down and every command may wait the moment until it is idle.
	settled bool
	// retrying is set from auto_retry_start until the retry ends or runs.
	retrying bool
	// promptStarted answers the prompt being started; Serve's subscriber
	// calls it before writing the run's first event.
	promptStarted *promptAnswer
	runs          sync.WaitGroup
}

// promptAnswer is the pending response of a prompt being started.
type promptAnswer struct{ fn func() }

type pendingBash struct {
	command string
	res     app.BashResult
	exclude bool
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
	Message            *string            `json:"message"` // nil = absent (an error for prompt, steer, follow_up)
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

// Serve reads commands from in until EOF and returns the exit code.
// Closing stdin is an orderly shutdown: open dialogs resolve as cancelled,
// a running prompt, bash command or compaction is aborted and answers,
// records are flushed, and Serve returns 0.
func Serve(ctx context.Context, rt *app.Runtime, in io.Reader, out io.Writer, o Options) int {
	// Every piece of work started by a command runs under ctx, so closing
	// stdin can stop it even before it registered its own cancel.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Hooks == nil {
		o.Hooks = hooks.New()
	}
	if o.Commands == nil {
		o.Commands = commands.New()
	}
	s := &Server{rt: rt, seam: o.Hooks, cmds: o.Commands, models: o.Models, shell: o.Shell, out: jsonl.NewWriter(out), ctx: ctx, pending: map[string]chan uiResponse{}, Export: o.Export}
	co := agent.NewCoalescer(16*time.Millisecond, func(e agent.Event) { _ = s.out.Write(e, e.Type != agent.MessageUpdate) })
	unsub := rt.Subscribe(func(e agent.Event) {
		switch e.Type {
		case agent.AutoRetryStart:
			s.setRetrying(true)
		case agent.AutoRetryEnd:
			s.setRetrying(false)
		case agent.AgentStart:
			s.setRetrying(false)
			s.setSettled(false)
		case agent.AgentSettled:
			// Set before the client can read agent_settled.
			s.setSettled(true)
		}
		if p := s.takePromptAnswer(); p != nil {
			p.fn()
		}
		co.Push(e)
		if e.Type == agent.AgentSettled {
			// The run has persisted everything: deferred bash results may
			// now join the branch, before any next prompt.
			s.flushBash()
		}
	})
	defer unsub()
	defer s.seam.BindUI(rpcUI{s: s})()

	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) > 0 {
				s.handle(line)
			}
		}
		if err != nil {
			break
		}
	}
	// stdin closed: the client is gone or done. Stop the work in flight
	// (the aborted reply is kept in the session) rather than spend tokens
	// on a run nobody reads, then let every goroutine answer and exit.
	s.shutdownDialogs()
	cancel()
	s.runs.Wait()
	rt.WaitIdle()
	s.flushBash()
	co.Flush()
	_ = s.out.Flush()
	return 0
}

// send writes one response. A nil id is left out.
func (s *Server) send(id *string, cmd string, data any, err error) {
	r := response{ID: id, Type: "response", Command: cmd, Success: err == nil}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Data = data
	}
	_ = s.out.Write(r, true)
}

func (s *Server) reply(c *command, data any, err error) { s.send(c.ID, c.Type, data, err) }

func (s *Server) handle(line []byte) {
	var c command
	defer func() {
		// A failing handler answers its command instead of ending the
		// connection, like a thrown error in the original.
		if p := recover(); p != nil {
			s.send(c.ID, c.Type, nil, fmt.Errorf("internal error: %v", p))
		}
	}()
	if err := json.Unmarshal(line, &c); err != nil {
		var head struct {
			ID   *string `json:"id"`
			Type string  `json:"type"`
		}
		if json.Unmarshal(line, &head) == nil && head.Type != "" {
			// Well-formed JSON with a field of the wrong type: answer the
			// command itself, so a client waiting on its id hears back.
			s.send(head.ID, head.Type, nil, errors.New("Invalid command: "+err.Error()))
			return
		}
		// The id may still be readable (a type of the wrong kind, a line
		// cut short after it): answer with it, so the client hears back.
		s.send(readableID(line), "parse", nil, errors.New("Failed to parse command: "+err.Error()))
		return
	}
	if c.Type == "extension_ui_response" {
		s.resolveUI(&c)
		return
	}
	s.awaitSettled()
	data, err := s.dispatch(&c)
	switch {
	case errors.Is(err, errAsync):
		return
	case errors.Is(err, errUnknown):
		// Unlike the original, the response carries the request's id, so a
		// client waiting on it hears back instead of hanging.
		s.send(c.ID, c.Type, nil, errors.New("Unknown command: "+c.Type))
		return
	}
	s.reply(&c, data, err)
}

// readableID returns the top-level "id" string of a command line that may
// be malformed, read token by token up to the first syntax error; nil
// when there is none.
func readableID(line []byte) *string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	depth := 1
	key := true // at depth 1, the next string token is a key
	var last string
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		switch v := t.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
			if depth == 1 {
				key = true
			}
		case string:
			if depth != 1 {
				continue
			}
			if key {
				last, key = v, false
				continue
			}
			if last == "id" {
				return &v
			}
			key = true
		default:
			if depth == 1 {
				key = true
			}
		}
	}
	return nil
}

var (
	// errAsync: the command answers later from its own goroutine.
	errAsync = errors.New("async")
	// errUnknown: no such command type.
	errUnknown = errors.New("unknown command")
)

// async runs fn off the read loop; Serve waits for it at shutdown. A
// panic in fn is reported through failed instead of ending the process.
func (s *Server) async(fn func(), failed func(error)) {
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		defer func() {
			if p := recover(); p != nil {
				failed(fmt.Errorf("internal error: %v", p))
			}
		}()
		fn()
	}()
}

// flushBash stores bash results that finished during a run.
func (s *Server) flushBash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushBashLocked()
}

func (s *Server) flushBashLocked() {
	for _, b := range s.bashPending {
		_ = app.RecordBash(s.rt.Session(), b.command, b.res, b.exclude)
	}
	s.bashPending = nil
}

// recordBash stores a finished bash result now when the agent is idle,
// else once the current run settles.
func (s *Server) recordBash(b pendingBash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starting || s.rt.State().IsStreaming {
		s.bashPending = append(s.bashPending, b)
		return nil
	}
	s.flushBashLocked()
	return app.RecordBash(s.rt.Session(), b.command, b.res, b.exclude)
}

// takePromptAnswer returns and clears the pending prompt answer.
func (s *Server) takePromptAnswer() *promptAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.promptStarted
	s.promptStarted = nil
	return p
}

// dropPromptAnswer clears p if it is still pending; a later prompt's
// answer stays.
func (s *Server) dropPromptAnswer(p *promptAnswer) {
	s.mu.Lock()
	if s.promptStarted == p {
		s.promptStarted = nil
	}
	s.mu.Unlock()
}

func (s *Server) setRetrying(v bool) {
	s.mu.Lock()
	s.retrying = v
	s.mu.Unlock()
}

func (s *Server) setSettled(v bool) {
	s.mu.Lock()
	s.settled = v
	s.mu.Unlock()
}

// awaitSettled lets a run that already emitted agent_settled finish, so a
// client that prompts as soon as it reads agent_settled finds the agent
// idle rather than busy.
func (s *Server) awaitSettled() {
	s.mu.Lock()
	settled := s.settled
	s.mu.Unlock()
	if settled && s.rt.State().IsStreaming {
		s.rt.WaitIdle()
	}
}
