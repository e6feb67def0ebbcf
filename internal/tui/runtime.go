// Package tui is relay's interactive terminal UI: one bubbletea v2 model
// composed of the transcript, the prompt editor, a footer and overlays
// (selectors, the /resume picker, the /tree navigator). It talks to the
// session through the Runtime interface and never does I/O in Update:
// runtime calls that may block run in tea.Cmds.
package tui

import (
	"context"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
)

// Runtime is what the UI needs from the live session. internal/app
// implements it (through a thin adapter where its types differ).
//
// Methods that wait (Prompt, Bash, Compact, NavigateTree, session
// switches) are called from goroutines; the rest must be cheap and safe to
// call from the UI goroutine.
type Runtime interface {
	// Subscribe delivers every agent event until the returned func is called.
	Subscribe(fn func(agent.Event)) (unsubscribe func())
	// Prompt runs a prompt to completion (steering and follow-ups included).
	Prompt(ctx context.Context, text string, images []llm.ImageContent) error
	Steer(text string, images []llm.ImageContent)
	FollowUp(text string, images []llm.ImageContent)
	// Dequeue removes and returns the queued steering and follow-up texts.
	Dequeue() []string
	Abort()
	IsStreaming() bool
	// Bash runs a !cmd; exclude keeps its output out of the context (!!cmd).
	Bash(ctx context.Context, command string, exclude bool, onChunk func(string)) (BashResult, error)
	AbortBash()
	Compact(ctx context.Context, instructions string) (*agent.CompactionResult, error)

	Model() *llm.Model
	AvailableModels() []*llm.Model
	SetModel(m *llm.Model) error
	// CycleModel moves through the scoped (or all) models; ok is false
	// when there is nothing to cycle to.
	CycleModel(forward bool) (m *llm.Model, level llm.ThinkingLevel, scoped, ok bool)
	ThinkingLevel() llm.ThinkingLevel
	SetThinkingLevel(l llm.ThinkingLevel) error
	CycleThinkingLevel() (llm.ThinkingLevel, bool)
	AvailableThinkingLevels() []llm.ThinkingLevel

	// ContextMessages is the active branch, for drawing the transcript
	// after start, resume, fork or tree navigation.
	ContextMessages() []llm.Message
	Info() Info
	NewSession() error
	SwitchSession(path string) error
	SetSessionName(name string) error
	ListSessions(allProjects bool) ([]SessionItem, error)
	DeleteSession(path string) error
	RenameSession(path, name string) error
	// ForkPoints lists the user messages /fork can start from.
	ForkPoints() []ForkPoint
	// Fork starts a new session before the user message and returns its text.
	Fork(entryID string) (string, error)
	Clone() error
	Tree() []TreeNode
	// NavigateTree moves the leaf; a selected user message's text comes
	// back for the editor.
	NavigateTree(ctx context.Context, targetID string, summarize bool, instructions string) (editorText string, err error)
	SetLabel(entryID, label string) error
}

// Info is the footer's and /session's view of the session.
type Info struct {
	Cwd         string
	SessionFile string
	SessionID   string
	SessionName string
	// Context window use: tokens in the last request and the window size.
	ContextTokens int
	ContextWindow int
	// Session totals.
	InputTokens, OutputTokens, CacheRead, CacheWrite int
	Cost                                             float64
	Messages                                         int
}

// BashResult is the outcome of a !cmd.
type BashResult struct {
	Output    string
	ExitCode  *int
	Cancelled bool
	Truncated bool
}

// SessionItem is one row of the /resume picker.
type SessionItem struct {
	Path     string
	ID       string
	Name     string
	Cwd      string
	Created  time.Time
	Modified time.Time
	Messages int
	// FirstMessage is the first prompt, shown when there is no name.
	FirstMessage string
}

// ForkPoint is a user message /fork can start from.
type ForkPoint struct {
	EntryID string
	Text    string
}

// TreeNode is one session entry for the /tree navigator, in file order.
type TreeNode struct {
	ID       string
	ParentID string
	// Kind is "user", "assistant", "toolResult", "bashExecution",
	// "compaction", "branchSummary", "custom", "model_change", ...
	Kind      string
	Text      string // message text (shown on one line; app.message.copy copies it)
	Label     string
	LabelTime time.Time
	Timestamp time.Time
	OnPath    bool // on the active branch
	Leaf      bool // the current leaf
	HasTools  bool // an assistant entry that only calls tools
}
