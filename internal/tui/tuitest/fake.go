// Package tuitest drives the interactive UI in tests: a scriptable fake
// Runtime and a driver that runs the model's commands the way bubbletea
// does, so tests can type keys and compare frames.
package tuitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui"
)

// Fake is an in-memory tui.Runtime. Prompts are answered by Reply, which
// by default streams "echo: <prompt>" as an assistant message.
type Fake struct {
	// SignIns are the providers with a subscription sign-in (/login runs
	// the registered command for them).
	SignIns map[string]bool

	mu       sync.Mutex
	subs     map[int]func(agent.Event)
	nextSub  int
	Calls    []string // method calls, for assertions
	Messages []llm.Message
	// steerQ and followQ are the two queues Queue holds together.
	steerQ, followQ []string
	Models          []*llm.Model
	model           *llm.Model
	level           llm.ThinkingLevel
	info            tui.Info
	Sessions        []tui.SessionItem
	Nodes           []tui.TreeNode
	Queue           []string
	streaming       bool
	// Reply builds the events for a prompt; nil uses Echo.
	Reply func(text string) []agent.Event
	// BashBlock, when set, holds Bash after its first output until closed.
	BashBlock chan struct{}
	// CompactErr, when set, makes Compact fail with it (after reporting
	// it in a CompactionEnd event, as the runtime does).
	CompactErr error
	// Block, when set, makes Prompt wait until it is closed or aborted.
	Block chan struct{}
	abort chan struct{}
	saved map[string]any
	// images is how many images the last prompt carried.
	images int
}

// LastImages is how many images the last prompt carried.
func (f *Fake) LastImages() int { f.mu.Lock(); defer f.mu.Unlock(); return f.images }

// NewFake returns a fake with two models and a session in /work/project.
func NewFake() *Fake {
	f := &Fake{subs: map[int]func(agent.Event){}, level: llm.ThinkingMedium}
	f.Models = []*llm.Model{
		{ID: "claude-sonnet-5-5", Name: "Claude Sonnet", Provider: "anthropic", Reasoning: true, ContextWindow: 200000},
		{ID: "gpt-6-luna", Name: "GPT Luna", Provider: "openai-codex", Reasoning: true, ContextWindow: 400000},
	}
	f.model = f.Models[0]
	f.info = tui.Info{Cwd: "/work/project", SessionFile: "/sessions/a.jsonl", SessionID: "a", ContextWindow: 200000}
	return f
}

func (f *Fake) call(s string) {
	f.mu.Lock()
	f.Calls = append(f.Calls, s)
	f.mu.Unlock()
}

// CallLog returns the calls so far.
func (f *Fake) CallLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.Calls...)
}

// Emit sends an event to every subscriber.
func (f *Fake) Emit(ev agent.Event) {
	f.mu.Lock()
	subs := make([]func(agent.Event), 0, len(f.subs))
	keys := make([]int, 0, len(f.subs))
	for k := range f.subs {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		subs = append(subs, f.subs[k])
	}
	f.mu.Unlock()
	for _, s := range subs {
		s(ev)
	}
}

func (f *Fake) Subscribe(fn func(agent.Event)) func() {
	f.mu.Lock()
	id := f.nextSub
	f.nextSub++
	f.subs[id] = fn
	f.mu.Unlock()
	return func() { f.mu.Lock(); delete(f.subs, id); f.mu.Unlock() }
}

// Echo is the default reply: a streamed assistant text.
func Echo(text string) []agent.Event {
	answer := "echo: " + text
	final := &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: answer}},
		Usage: llm.Usage{Input: 1200, Output: 30}}
	evs := []agent.Event{
		{Type: agent.MessageStart, Message: &llm.AssistantMessage{StopReason: llm.StopPending}},
		{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventTextStart}},
	}
	for _, w := range strings.SplitAfter(answer, " ") {
		evs = append(evs, agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventTextDelta, Delta: w}})
	}
	evs = append(evs, agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventTextEnd, Content: answer}},
		agent.Event{Type: agent.MessageEnd, Message: final})
	return evs
}

// ToolReply answers with one bash tool call and its result, then text.
func ToolReply(command, output string) func(string) []agent.Event {
	return func(string) []agent.Event {
		args := json.RawMessage(fmt.Sprintf(`{"command":%q}`, command))
		call := &llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: "t1", Name: "bash", Arguments: args}}}
		res := &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: output}}}
		evs := []agent.Event{
			{Type: agent.MessageStart, Message: &llm.AssistantMessage{}},
			{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventToolCallStart, ID: "t1", ToolName: "bash"}},
			{Type: agent.MessageEnd, Message: call},
			{Type: agent.ToolExecutionStart, ToolCallID: "t1", ToolName: "bash", Args: args},
			{Type: agent.ToolExecutionEnd, ToolCallID: "t1", ToolName: "bash", Output: res},
		}
		return append(evs, Echo("done")...)
	}
}

func (f *Fake) Prompt(ctx context.Context, text string, images []llm.ImageContent) error {
	f.call("Prompt " + text)
	f.mu.Lock()
	f.images = len(images)
	f.streaming = true
	f.abort = make(chan struct{})
	abort, block := f.abort, f.Block
	reply := f.Reply
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.streaming = false; f.mu.Unlock() }()
	user := &llm.UserMessage{Content: llm.StringContent(text)}
	if len(images) > 0 {
		blocks := llm.Blocks{&llm.TextContent{Text: text}}
		for i := range images {
			blocks = append(blocks, &images[i])
		}
		user.Content = llm.Content{Blocks: blocks}
	}
	f.Emit(agent.Event{Type: agent.AgentStart})
	f.Emit(agent.Event{Type: agent.MessageStart, Message: user})
	f.Emit(agent.Event{Type: agent.MessageEnd, Message: user})
	f.mu.Lock()
	f.Messages = append(f.Messages, user)
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-abort:
			aborted := &llm.AssistantMessage{StopReason: llm.StopAborted}
			f.Emit(agent.Event{Type: agent.MessageStart, Message: aborted})
			f.Emit(agent.Event{Type: agent.MessageEnd, Message: aborted})
			f.Emit(agent.Event{Type: agent.AgentSettled})
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if reply == nil {
		reply = Echo
	}
	for _, ev := range reply(text) {
		if ev.Type == agent.MessageEnd {
			f.mu.Lock()
			f.Messages = append(f.Messages, ev.Message)
			if a, ok := ev.Message.(*llm.AssistantMessage); ok {
				f.info.InputTokens += a.Usage.Input
				f.info.OutputTokens += a.Usage.Output
				f.info.ContextTokens = a.Usage.Input + a.Usage.Output
				f.info.Cost += 0.01
			}
			f.mu.Unlock()
		}
		f.Emit(ev)
	}
	f.Emit(agent.Event{Type: agent.AgentEnd})
	f.Emit(agent.Event{Type: agent.AgentSettled})
	return nil
}

func (f *Fake) Steer(text string, _ []llm.ImageContent) {
	f.call("Steer " + text)
	f.mu.Lock()
	f.Queue = append(f.Queue, text)
	f.steerQ = append(f.steerQ, text)
	ev := agent.Event{Type: agent.QueueUpdate, Steering: slices.Clone(f.steerQ), FollowUp: slices.Clone(f.followQ)}
	f.mu.Unlock()
	f.Emit(ev)
}

func (f *Fake) FollowUp(text string, _ []llm.ImageContent) {
	f.call("FollowUp " + text)
	f.mu.Lock()
	f.Queue = append(f.Queue, text)
	f.followQ = append(f.followQ, text)
	ev := agent.Event{Type: agent.QueueUpdate, Steering: slices.Clone(f.steerQ), FollowUp: slices.Clone(f.followQ)}
	f.mu.Unlock()
	f.Emit(ev)
}

func (f *Fake) Dequeue() []string {
	f.call("Dequeue")
	f.mu.Lock()
	q := f.Queue
	f.Queue, f.steerQ, f.followQ = nil, nil, nil
	f.mu.Unlock()
	f.Emit(agent.Event{Type: agent.QueueUpdate})
	return q
}

func (f *Fake) Abort() {
	f.call("Abort")
	f.mu.Lock()
	if f.abort != nil {
		select {
		case <-f.abort:
		default:
			close(f.abort)
		}
	}
	f.mu.Unlock()
}

func (f *Fake) IsStreaming() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.streaming }

func (f *Fake) Bash(ctx context.Context, command string, exclude bool, onChunk func(string)) (tui.BashResult, error) {
	f.call(fmt.Sprintf("Bash %s exclude=%v", command, exclude))
	out := "output of " + command + "\n"
	onChunk(out)
	if b := f.BashBlock; b != nil {
		<-b // a command still running after its first output
	}
	code := 0
	return tui.BashResult{Output: out, ExitCode: &code}, nil
}

func (f *Fake) AbortBash() { f.call("AbortBash") }

func (f *Fake) Compact(ctx context.Context, instructions string) (*agent.CompactionResult, error) {
	f.call("Compact " + instructions)
	f.Emit(agent.Event{Type: agent.CompactionStart, Reason: "manual"})
	if f.CompactErr != nil {
		f.Emit(agent.Event{Type: agent.CompactionEnd, Reason: "manual", ErrorMessage: f.CompactErr.Error()})
		return nil, f.CompactErr
	}
	r := &agent.CompactionResult{Summary: "summary", TokensBefore: 1000}
	f.Emit(agent.Event{Type: agent.CompactionEnd, Reason: "manual", Result: r})
	return r, nil
}

func (f *Fake) Model() *llm.Model             { f.mu.Lock(); defer f.mu.Unlock(); return f.model }
func (f *Fake) AvailableModels() []*llm.Model { return f.Models }

func (f *Fake) SetModel(m *llm.Model) error {
	f.call("SetModel " + m.Provider + "/" + m.ID)
	f.mu.Lock()
	f.model = m
	f.mu.Unlock()
	return nil
}

func (f *Fake) CycleModel(forward bool) (*llm.Model, llm.ThinkingLevel, bool, bool) {
	f.call(fmt.Sprintf("CycleModel %v", forward))
	f.mu.Lock()
	defer f.mu.Unlock()
	idx := 0
	for i, m := range f.Models {
		if m == f.model {
			idx = i
		}
	}
	if forward {
		idx = (idx + 1) % len(f.Models)
	} else {
		idx = (idx - 1 + len(f.Models)) % len(f.Models)
	}
	f.model = f.Models[idx]
	return f.model, f.level, false, true
}

func (f *Fake) ThinkingLevel() llm.ThinkingLevel { f.mu.Lock(); defer f.mu.Unlock(); return f.level }

func (f *Fake) SetThinkingLevel(l llm.ThinkingLevel) error {
	f.call("SetThinkingLevel " + string(l))
	f.mu.Lock()
	f.level = l
	f.mu.Unlock()
	return nil
}

func (f *Fake) CycleThinkingLevel() (llm.ThinkingLevel, bool) {
	levels := f.AvailableThinkingLevels()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, l := range levels {
		if l == f.level {
			f.level = levels[(i+1)%len(levels)]
			break
		}
	}
	f.Calls = append(f.Calls, "CycleThinkingLevel "+string(f.level))
	return f.level, true
}

func (f *Fake) AvailableThinkingLevels() []llm.ThinkingLevel {
	return []llm.ThinkingLevel{llm.ThinkingOff, llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh}
}

func (f *Fake) ContextMessages() []llm.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Message(nil), f.Messages...)
}

func (f *Fake) Info() tui.Info { f.mu.Lock(); defer f.mu.Unlock(); return f.info }

// SetInfo replaces the session info.
func (f *Fake) SetInfo(in tui.Info) { f.mu.Lock(); f.info = in; f.mu.Unlock() }

func (f *Fake) NewSession() error {
	f.call("NewSession")
	f.mu.Lock()
	f.Messages = nil
	f.info.SessionID, f.info.SessionFile, f.info.SessionName = "new", "/sessions/new.jsonl", ""
	f.mu.Unlock()
	return nil
}

func (f *Fake) SwitchSession(path string) error {
	f.call("SwitchSession " + path)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.Sessions {
		if s.Path == path {
			f.info.SessionFile, f.info.SessionID, f.info.SessionName = s.Path, s.ID, s.Name
			f.Messages = []llm.Message{&llm.UserMessage{Content: llm.StringContent(s.FirstMessage)}}
			return nil
		}
	}
	return errors.New("no such session " + path)
}

func (f *Fake) SetSessionName(name string) error {
	f.call("SetSessionName " + name)
	f.mu.Lock()
	f.info.SessionName = name
	f.mu.Unlock()
	return nil
}

func (f *Fake) ListSessions(all bool) ([]tui.SessionItem, error) {
	f.call(fmt.Sprintf("ListSessions %v", all))
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tui.SessionItem(nil), f.Sessions...), nil
}

func (f *Fake) DeleteSession(path string) error {
	f.call("DeleteSession " + path)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, s := range f.Sessions {
		if s.Path == path {
			f.Sessions = append(f.Sessions[:i], f.Sessions[i+1:]...)
			return nil
		}
	}
	return errors.New("no such session")
}

func (f *Fake) RenameSession(path, name string) error {
	f.call("RenameSession " + path + " " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.Sessions {
		if f.Sessions[i].Path == path {
			f.Sessions[i].Name = name
		}
	}
	return nil
}

func (f *Fake) ForkPoints() []tui.ForkPoint {
	var out []tui.ForkPoint
	for _, n := range f.Nodes {
		if n.Kind == "user" && n.OnPath {
			out = append(out, tui.ForkPoint{EntryID: n.ID, Text: n.Text})
		}
	}
	return out
}

func (f *Fake) Fork(entryID string) (string, error) {
	f.call("Fork " + entryID)
	for _, n := range f.Nodes {
		if n.ID == entryID {
			return n.Text, nil
		}
	}
	return "", errors.New("no entry")
}

func (f *Fake) Clone() error { f.call("Clone"); return nil }

func (f *Fake) Tree() []tui.TreeNode {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tui.TreeNode(nil), f.Nodes...)
}

func (f *Fake) NavigateTree(ctx context.Context, targetID string, summarize bool, instructions string) (string, error) {
	f.call(fmt.Sprintf("NavigateTree %s summarize=%v %s", targetID, summarize, instructions))
	for _, n := range f.Nodes {
		if n.ID == targetID && n.Kind == "user" {
			return n.Text, nil
		}
	}
	return "", nil
}

func (f *Fake) SetLabel(entryID, label string) error {
	f.call("SetLabel " + entryID + " " + label)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.Nodes {
		if f.Nodes[i].ID == entryID {
			f.Nodes[i].Label = label
		}
	}
	return nil
}

var _ tui.Runtime = (*Fake)(nil)

// Configurator side of the fake: saved values land in Saved.

// SavedSettings returns what was saved.
func (f *Fake) SavedSettings() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]any{}
	for k, v := range f.saved {
		out[k] = v
	}
	return out
}

func (f *Fake) save(k string, v any) {
	f.mu.Lock()
	if f.saved == nil {
		f.saved = map[string]any{}
	}
	f.saved[k] = v
	f.mu.Unlock()
}

func (f *Fake) SaveDefaultModel(m *llm.Model) error {
	f.save("defaultModel", m.Provider+"/"+m.ID)
	return nil
}

func (f *Fake) SaveThinkingLevel(l llm.ThinkingLevel) error {
	f.save("defaultThinkingLevel", string(l))
	return nil
}

func (f *Fake) Providers() []tui.ProviderStatus {
	return []tui.ProviderStatus{{Name: "anthropic", Source: "auth.json", Stored: true}, {Name: "openai-codex"}}
}

func (f *Fake) SignInProvider(provider string) bool { return f.SignIns[provider] }

func (f *Fake) Login(provider, key string) error {
	f.call("Login " + provider + " " + key)
	return nil
}

func (f *Fake) Logout(provider string) error {
	f.call("Logout " + provider)
	return nil
}

func (f *Fake) EnabledModels() []string {
	if v, ok := f.SavedSettings()["enabledModels"].([]string); ok {
		return v
	}
	return nil
}

func (f *Fake) SaveEnabledModels(ids []string) error {
	f.save("enabledModels", ids)
	return nil
}

func (f *Fake) Setting(key string) any { return f.SavedSettings()[key] }

func (f *Fake) SetSetting(key string, value any) error {
	f.save(key, value)
	return nil
}

var _ tui.Configurator = (*Fake)(nil)

func (f *Fake) BugReport(ctx context.Context, description, transcript string) (string, error) {
	f.call("BugReport " + description + " " + transcript)
	return "Bug report written to relay-bug.zip", nil
}

func (f *Fake) BugNotes() (string, string, string) {
	return "The report is a zip archive.", "include note", "summary note"
}

var _ tui.BugReporter = (*Fake)(nil)

// SetNoModel leaves the fake without a model, like a first start with no
// API key.
func (f *Fake) SetNoModel() {
	f.mu.Lock()
	f.model = nil
	f.mu.Unlock()
}
