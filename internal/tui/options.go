package tui

import (
	"context"
	"io"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
	"github.com/relay-agent/relay/internal/tui/theme"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// Options configure the UI; the CLI fills them from settings and flags.
type Options struct {
	// Registry is the slash-command registry shared with the runtime (nil
	// = the UI's own commands only).
	Registry *commands.Registry
	// Env is the environment read once by the CLI (terminal detection,
	// $VISUAL/$EDITOR).
	Env     config.Env
	Version string

	Keymap          *keymap.Keymap // nil: platform defaults
	StartupWarnings []string       // keybindings, themes, resources: shown at start-up
	// StartupNotices are shown at start-up as notices, quiet or not (a
	// resumed session's model that could not be restored).
	StartupNotices []string
	// ThemeSetting is the `theme` setting ("", "dark", "light/dark", a
	// custom name); CustomThemes are the loaded theme files.
	ThemeSetting string
	CustomThemes map[string]*theme.Theme
	ThemeErrors  []string
	// Terminal is what is known about the terminal's colours up front
	// (COLORFGBG); the reported background arrives as a message.
	Terminal theme.Terminal

	Fullscreen             bool     // tuiMode == "fullscreen"
	FullscreenScrollbar    string   // "auto" | "always" | "hidden"
	FullscreenExitOutput   string   // "transcript" | "resume-hint"
	CopyOnSelect           bool     // fullscreenCopyOnSelect
	TerminalProgress       bool     // terminal.showTerminalProgress (OSC 9;4)
	FullscreenWheelLines   int      // 0 = auto
	QuietStartup           bool     // hide the header and the start-up notes
	HeaderOnly             bool     // quietStartup "header": keep the header only
	StartupNotes           []string // loaded resources, model scope ...
	OutputPad              int
	EditorPaddingX         int
	AutocompleteMaxVisible int
	ShowHardwareCursor     bool
	HideThinkingBlock      bool
	DoubleEscapeAction     string // "tree" | "fork" | "none"
	TreeFilterMode         string
	BranchSummarySkip      bool // branchSummary.skipPrompt
	CodeBlockIndent        string
	Hyperlinks             bool
	Mermaid                string // markdown.mermaid: "off" | "final" | "streaming"
	// Changelog is the changelog sections new since the last start (shown
	// once after an update); CollapseChangelog shows one line instead.
	Changelog         string
	CollapseChangelog bool
	// UpdateCheck, when set, runs once in the background at start and
	// returns a notice ("" for none): the latest-release check, off when
	// RELAY_SKIP_VERSION_CHECK or offline mode say so.
	UpdateCheck func(ctx context.Context) string
	// SubscriptionAuth reports whether a provider is signed in with a
	// subscription (OAuth) rather than an API key; nil when
	// warnings.anthropicExtraUsage is off. Anthropic subscription
	// sign-in gets a warning, once, that it may use paid extra usage.
	SubscriptionAuth func(provider string) bool
	// Images: how images in messages are drawn (terminal.images detection,
	// imageWidthCells). Regular mode only; see transcript.ImageOptions.
	Images transcript.ImageOptions
	// ClearOnShrink (terminal.clearOnShrink): when the live area of regular
	// mode shrinks, let the rows go; otherwise keep them (blank), so the
	// editor does not jump up.
	ClearOnShrink bool
	// EscTimeout is how long a lone Escape waits for a key to make an Alt
	// combination (RELAY_TUI_ESC_TIMEOUT); 0 handles it at once.
	EscTimeout time.Duration
	// TrueColor forces the colour profile: nil detects, true 24-bit,
	// false 256 colours (terminal.trueColor, RELAY_TRUE_COLOR).
	TrueColor      *bool
	ExternalEditor string // externalEditor setting

	// Completer supplies @file and /command completion; nil uses the
	// built-in command list only.
	Completer editor.Completer
	// Commands are prompt templates and skills ("skill:name"): offered by
	// completion and submitted as prompts (the runtime expands them).
	Commands []Command
	// OnCommand runs a slash command the UI does not implement itself
	// (/export, /share, /bug, /login, /settings ...). It runs in a
	// goroutine; its text is shown in the transcript.
	OnCommand func(ctx context.Context, name, args string) (string, error)
	// Reload re-reads keybindings, themes and resources (/reload).
	Reload func() (ReloadResult, error)
	// SaveSetting persists a setting (thinking level, model) when the
	// user asks to save; may be nil.
	SaveSetting func(key string, value any) error

	// Approver is the hooks.UI this UI serves: the harness's authorization
	// questions and everything extensions show (dialogs, widgets, status,
	// components); nil means none are shown here.
	Approver *Approver

	// Notices subscribes to the runtime's transient notices (harness
	// decisions); nil means none.
	Notices func(fn func(string)) (unsubscribe func())
	// Renderers are the extensions' message, entry and tool renderers
	// (nil: none); Shown subscribes to the custom messages and entries
	// features record outside a run (nil: none).
	Renderers Renderers
	Shown     func(fn func(hooks.Shown)) (unsubscribe func())

	OpenResume bool // --resume: open the session picker at start
	// StatusLine and FooterModel add runtime state the UI does not own
	// (Laya's task type and tier, container and training progress; the
	// routed model next to laya/auto). They are called on the update loop
	// at every frame and must only read memory.
	StatusLine  func() string
	FooterModel func() string

	History       []string // prompt history, oldest first
	InitialPrompt string   // submitted on start
	// InitialImages go with InitialPrompt (images given as @file on the
	// command line).
	InitialImages []llm.ImageContent

	// Test hooks.
	Input       io.Reader
	Output      io.Writer
	WindowSize  [2]int
	NoSignals   bool
	DisableTick bool
}

// ReloadResult is what /reload produced.
type ReloadResult struct {
	Keymap       *keymap.Keymap
	CustomThemes map[string]*theme.Theme
	ThemeSetting string
	Warnings     []string
	// Settings are the options rebuilt from the re-read settings; the
	// ones that can change while running are applied (nil: none).
	Settings *Options
	// Notes say what changed (skills, templates, context files).
	Notes []string
	// Commands replace the template and skill commands when non-nil.
	Commands []Command
}

// Command is a slash command for completion and dispatch.
type Command struct {
	Name        string
	Description string
}

// builtinCommands are the commands the UI knows.
var builtinCommands = []Command{
	{"settings", "View and change settings"},
	{"model", "Select the model"},
	{"scoped-models", "Choose the models ctrl+p cycles through"},
	{"thinking", "Set the thinking level"},
	{"login", "Add an API key or sign in"},
	{"logout", "Remove stored credentials"},
	{"new", "Start a new session"},
	{"resume", "Resume another session"},
	{"name", "Set or show the session name"},
	{"session", "Show session file, id, messages, tokens and cost"},
	{"tree", "Navigate the session tree"},
	{"fork", "New session from an earlier user message"},
	{"clone", "Copy the active branch into a new session"},
	{"compact", "Compact the context [instructions]"},
	{"import", "Import and resume a session JSONL file"},
	{"copy", "Copy the last answer"},
	{"export", "Export the session to HTML or JSONL [path]"},
	{"share", "Share the session as a secret gist"},
	{"bug", "Write a bug report zip [description]"},
	{"reload", "Reload keybindings, themes and resources"},
	{"harness", "Show the harness-core status"},
	{"laya", "Adaptive routing: status, setup, learn, models, policy"},
	{"trust", "Show or change project trust"},
	{"changelog", "Show what changed in this version"},
	{"debug", "Write relay-debug.log"},
	{"hotkeys", "Show keyboard shortcuts"},
	{"quit", "Exit relay"},
}
