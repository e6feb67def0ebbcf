// Package settings reads, validates, merges and writes relay's settings
// files (settings.md): the user file <agentDir>/settings.json and the
// project file <cwd>/.relay/settings.json, and decides project trust
// (upstream-spec-core.md §7.3). A bad value never stops relay: it becomes a
// Diagnostic naming the file, the key and what is allowed, and the key keeps
// its default.
package settings

import (
	"encoding/json"
	"runtime"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// QueueMode is how queued steering or follow-up messages are delivered.
type QueueMode string

const (
	QueueAll        QueueMode = "all"
	QueueOneAtATime QueueMode = "one-at-a-time"
)

// ProjectTrust is the defaultProjectTrust fallback.
type ProjectTrust string

const (
	TrustAsk    ProjectTrust = "ask"
	TrustAlways ProjectTrust = "always"
	TrustNever  ProjectTrust = "never"
)

// CacheWarming is the cacheWarming profile.
type CacheWarming string

const (
	CacheWarmingOff       CacheWarming = "off"
	CacheWarmingStreaming CacheWarming = "streaming"
	CacheWarmingIdle      CacheWarming = "idle"
)

// Defaults named by settings.md that other packages need.
const (
	// DefaultLayaBaseURL is settings.md's default. laya.md (seed 002, the
	// Docker generation) publishes the server on 127.0.0.1:8737 instead;
	// the two product documents disagree and this follows settings.md.
	DefaultLayaBaseURL      = "http://127.0.0.1:8000/v1"
	DefaultHTTPIdleTimeout  = 300000
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// DefaultToolNames are the tools enabled when defaultTools does not change them.
func DefaultToolNames() []string { return []string{"read", "bash", "edit", "write"} }

// Settings is the effective configuration: defaults, then the user file,
// then the trusted project file. JSON names match the files.
type Settings struct {
	// Model and thinking.
	DefaultProvider      string                       `json:"defaultProvider"` // "" = automatic
	DefaultModel         string                       `json:"defaultModel"`    // "" = automatic
	DefaultThinkingLevel llm.ThinkingLevel            `json:"defaultThinkingLevel"`
	ModelThinkingLevels  map[string]llm.ThinkingLevel `json:"modelThinkingLevels"` // "provider/modelId" -> level
	// ThinkingBudgets holds only the levels the user set; the rest use the
	// built-in budgets of the llm package.
	ThinkingBudgets      map[llm.ThinkingLevel]int `json:"thinkingBudgets"`
	EnabledModels        []string                  `json:"enabledModels"` // nil = all available models
	HideThinkingBlock    bool                      `json:"hideThinkingBlock"`
	ShowCacheMissNotices bool                      `json:"showCacheMissNotices"`
	CacheWarming         CacheWarming              `json:"cacheWarming"` // agent directory only

	// Interaction.
	SteeringMode        QueueMode    `json:"steeringMode"`
	FollowUpMode        QueueMode    `json:"followUpMode"`
	ExternalEditor      string       `json:"externalEditor"` // see ExternalEditorCommand
	DoubleEscapeAction  string       `json:"doubleEscapeAction"`
	TreeFilterMode      string       `json:"treeFilterMode"`
	DefaultProjectTrust ProjectTrust `json:"defaultProjectTrust"` // agent directory only

	// Tools. DefaultTools is the resolved startup selection (ResolveTools).
	DefaultTools []string `json:"-"`
	Codemode     Codemode `json:"codemode"`

	// Sessions and context. SessionDir is absolute, or "" for the default
	// store; the project value is read before trust.
	SessionDir    string        `json:"-"`
	Compaction    Compaction    `json:"compaction"`
	HarnessCore   HarnessCore   `json:"harnessCore"`
	Laya          Laya          `json:"laya"`
	BranchSummary BranchSummary `json:"branchSummary"`

	// Terminal and display.
	Theme                      string           `json:"theme"`
	QuietStartup               QuietStartup     `json:"quietStartup"`
	TUIMode                    string           `json:"tuiMode"`
	FullscreenExitOutput       string           `json:"fullscreenExitOutput"`
	FullscreenScrollbar        string           `json:"fullscreenScrollbar"`
	FullscreenCopyOnSelect     bool             `json:"fullscreenCopyOnSelect"`
	FullscreenWheelScrollLines WheelScrollLines `json:"fullscreenWheelScrollLines"`
	EditorPaddingX             int              `json:"editorPaddingX"`
	OutputPad                  int              `json:"outputPad"`
	AutocompleteMaxVisible     int              `json:"autocompleteMaxVisible"`
	ShowHardwareCursor         bool             `json:"showHardwareCursor"`
	Terminal                   Terminal         `json:"terminal"`
	Images                     Images           `json:"images"`
	Markdown                   Markdown         `json:"markdown"`

	// Network and retries.
	Transport                 string `json:"transport"`
	HTTPProxy                 string `json:"httpProxy"` // agent directory only
	HTTPIdleTimeoutMs         int    `json:"httpIdleTimeoutMs"`
	WebsocketConnectTimeoutMs int    `json:"websocketConnectTimeoutMs"`
	Retry                     Retry  `json:"retry"`

	// Shell. ShellPath has a leading ~ expanded.
	ShellPath          string   `json:"shellPath"` // "" = platform default
	ShellCommandPrefix string   `json:"shellCommandPrefix"`
	NpmCommand         []string `json:"npmCommand"`

	// Resources, combined from both files, user entries first.
	Packages            []PackageSource `json:"-"`
	Extensions          []Resource      `json:"-"`
	Skills              []Resource      `json:"-"`
	Prompts             []Resource      `json:"-"`
	Themes              []Resource      `json:"-"`
	EnableSkillCommands bool            `json:"enableSkillCommands"`

	// Updates, telemetry and warnings.
	CollapseChangelog      bool     `json:"collapseChangelog"`
	EnableInstallTelemetry bool     `json:"enableInstallTelemetry"`
	EnableAnalytics        bool     `json:"enableAnalytics"`
	Warnings               Warnings `json:"warnings"`

	// Bookkeeping written by relay.
	LastChangelogVersion string `json:"lastChangelogVersion"`
	TrackingID           string `json:"trackingId"`
	DeviceID             string `json:"deviceId"` // agent directory only
}

// Codemode is codemode.*.
type Codemode struct {
	Mode         string `json:"mode"` // "on" | "only"
	InlineBudget int    `json:"inlineBudget"`
}

// Compaction is compaction.*; use Settings.CompactionFor for a model.
type Compaction struct {
	Enabled          bool                          `json:"enabled"`
	ReserveTokens    int                           `json:"reserveTokens"`
	KeepRecentTokens int                           `json:"keepRecentTokens"`
	ModelOverrides   map[string]CompactionOverride `json:"modelOverrides"` // exact "provider/modelId"
}

// CompactionOverride is one compaction.modelOverrides entry; nil fields
// fall back independently.
type CompactionOverride struct {
	ReserveTokens    *int `json:"reserveTokens,omitempty"`
	KeepRecentTokens *int `json:"keepRecentTokens,omitempty"`
}

// HarnessCore is harnessCore.*.
type HarnessCore struct {
	Alignment         bool     `json:"alignment"`
	AuthorizationGate bool     `json:"authorizationGate"`
	ScopeGuard        bool     `json:"scopeGuard"`
	Evidence          bool     `json:"evidence"`
	Context           bool     `json:"context"`
	ContextKeepRecent int      `json:"contextKeepRecent"`
	ContextBatchSize  int      `json:"contextBatchSize"`
	Skills            bool     `json:"skills"`
	VerifyCommands    []string `json:"verifyCommands"`
	MaxChangedLines   int      `json:"maxChangedLines"`
	MaxFileLines      int      `json:"maxFileLines"`
}

// Laya is laya.*. Models and ModelGroups hold only what the user set: a
// tier set here replaces that tier's registry default (laya.md).
type Laya struct {
	BaseURL                string                         `json:"baseUrl"` // see Settings.LayaBaseURL
	Autostart              bool                           `json:"autostart"`
	Python                 string                         `json:"python"` // "" = first of python3, python, py
	Image                  string                         `json:"image"`  // "" = the release image
	Policy                 string                         `json:"policy"`
	Models                 map[string][]string            `json:"models"`
	ModelGroups            map[string]map[string][]string `json:"modelGroups"`
	FollowProvider         bool                           `json:"followProvider"`
	Quota                  map[string]float64             `json:"quota"` // missing provider = 1
	MinConfidence          float64                        `json:"minConfidence"`
	EscalateAfterFailures  int                            `json:"escalateAfterFailures"`
	ToolRouting            string                         `json:"toolRouting"`
	ToolRetrieval          int                            `json:"toolRetrieval"`
	ToolRetrievalTelemetry bool                           `json:"toolRetrievalTelemetry"`
	Telemetry              bool                           `json:"telemetry"`
	Memory                 bool                           `json:"memory"`
	TimeoutMs              int                            `json:"timeoutMs"`
	// Classifier picks who answers Laya's questions: "laya" (the System
	// One server, default), "llama.cpp" (the first model loaded on the
	// llama.cpp server), "llama.cpp/<model>", or "rules" (keyword rules).
	Classifier string `json:"classifier"`
}

// BranchSummary is branchSummary.*.
type BranchSummary struct {
	ReserveTokens int  `json:"reserveTokens"`
	SkipPrompt    bool `json:"skipPrompt"`
}

// Terminal is terminal.*.
type Terminal struct {
	ShowImages           bool          `json:"showImages"`
	ImageWidthCells      int           `json:"imageWidthCells"`
	ClearOnShrink        bool          `json:"clearOnShrink"`
	ShowTerminalProgress bool          `json:"showTerminalProgress"`
	Hyperlinks           BoolOrAuto    `json:"hyperlinks"`
	Images               ImageProtocol `json:"images"`
	TrueColor            BoolOrAuto    `json:"trueColor"`
}

// Images is images.*.
type Images struct {
	AutoResize  bool `json:"autoResize"`
	BlockImages bool `json:"blockImages"`
}

// Markdown is markdown.*.
type Markdown struct {
	CodeBlockIndent string `json:"codeBlockIndent"`
	Mermaid         string `json:"mermaid"`
}

// Retry is retry.*.
type Retry struct {
	Enabled         bool          `json:"enabled"`
	MaxRetries      int           `json:"maxRetries"`
	BaseDelayMs     int           `json:"baseDelayMs"`
	MaxAgentDelayMs int           `json:"maxAgentDelayMs"`
	Provider        ProviderRetry `json:"provider"`
}

// ProviderRetry is retry.provider.*; use Settings.ProviderTimeoutMs.
type ProviderRetry struct {
	TimeoutMs       *int `json:"timeoutMs"` // nil = httpIdleTimeoutMs
	MaxRetries      int  `json:"maxRetries"`
	MaxRetryDelayMs int  `json:"maxRetryDelayMs"`
}

// Warnings is warnings.*.
type Warnings struct {
	AnthropicExtraUsage bool `json:"anthropicExtraUsage"`
}

// Defaults returns the settings.md defaults.
func Defaults() *Settings {
	return &Settings{
		DefaultThinkingLevel: llm.ThinkingMedium,
		CacheWarming:         CacheWarmingStreaming,
		SteeringMode:         QueueOneAtATime,
		FollowUpMode:         QueueOneAtATime,
		DoubleEscapeAction:   "tree",
		TreeFilterMode:       "default",
		DefaultProjectTrust:  TrustAsk,
		DefaultTools:         DefaultToolNames(),
		Codemode:             Codemode{Mode: "on", InlineBudget: 3000},
		Compaction:           Compaction{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens},
		HarnessCore: HarnessCore{
			Alignment: true, AuthorizationGate: true, ScopeGuard: true, Evidence: true, Context: true,
			ContextKeepRecent: 6, ContextBatchSize: 6, Skills: true, VerifyCommands: []string{},
			MaxChangedLines: 500, MaxFileLines: 1000,
		},
		Laya: Laya{
			Autostart: true, Policy: "balanced", MinConfidence: 0.5, EscalateAfterFailures: 3,
			ToolRouting: "advise", Telemetry: true, Memory: true, TimeoutMs: 5000,
		},
		BranchSummary:              BranchSummary{ReserveTokens: DefaultReserveTokens},
		Theme:                      "system",
		QuietStartup:               QuietStartup{},
		TUIMode:                    "fullscreen",
		FullscreenExitOutput:       "transcript",
		FullscreenScrollbar:        "auto",
		FullscreenCopyOnSelect:     true,
		FullscreenWheelScrollLines: WheelScrollLines{},
		OutputPad:                  1,
		AutocompleteMaxVisible:     5,
		Terminal: Terminal{
			ShowImages: true, ImageWidthCells: 60,
			Hyperlinks: BoolOrAuto{}, Images: ImageProtocol{Value: "auto"}, TrueColor: BoolOrAuto{},
		},
		Images:                    Images{AutoResize: true},
		Markdown:                  Markdown{CodeBlockIndent: "  ", Mermaid: "streaming"},
		Transport:                 "auto",
		HTTPIdleTimeoutMs:         DefaultHTTPIdleTimeout,
		WebsocketConnectTimeoutMs: 15000,
		Retry: Retry{
			Enabled: true, MaxRetries: 3, BaseDelayMs: 2000, MaxAgentDelayMs: 60000,
			Provider: ProviderRetry{MaxRetryDelayMs: 60000},
		},
		NpmCommand:             []string{"npm"},
		EnableSkillCommands:    true,
		EnableInstallTelemetry: true,
		Warnings:               Warnings{AnthropicExtraUsage: true},
	}
}

// QuietStartup is true, false or "header".
type QuietStartup struct {
	Quiet      bool // true: hide header and resource listing
	HeaderOnly bool // "header": keep the header, hide the rest
}

func (q *QuietStartup) UnmarshalJSON(b []byte) error {
	*q = QuietStartup{}
	var s string
	if json.Unmarshal(b, &s) == nil {
		q.HeaderOnly = s == "header"
		return nil
	}
	return json.Unmarshal(b, &q.Quiet)
}

func (q QuietStartup) MarshalJSON() ([]byte, error) {
	if q.HeaderOnly {
		return []byte(`"header"`), nil
	}
	return json.Marshal(q.Quiet)
}

// WheelScrollLines is "auto" (Lines == 0) or 1..100.
type WheelScrollLines struct{ Lines int }

// Auto reports the "auto" setting.
func (w WheelScrollLines) Auto() bool { return w.Lines == 0 }

func (w *WheelScrollLines) UnmarshalJSON(b []byte) error {
	*w = WheelScrollLines{}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return nil
	}
	return json.Unmarshal(b, &w.Lines)
}

func (w WheelScrollLines) MarshalJSON() ([]byte, error) {
	if w.Auto() {
		return []byte(`"auto"`), nil
	}
	return json.Marshal(w.Lines)
}

// BoolOrAuto is true, false or "auto" (Set false).
type BoolOrAuto struct {
	Set   bool // false = "auto": detect
	Value bool
}

func (v *BoolOrAuto) UnmarshalJSON(b []byte) error {
	*v = BoolOrAuto{}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return nil
	}
	v.Set = true
	return json.Unmarshal(b, &v.Value)
}

func (v BoolOrAuto) MarshalJSON() ([]byte, error) {
	if !v.Set {
		return []byte(`"auto"`), nil
	}
	return json.Marshal(v.Value)
}

// ImageProtocol is "kitty", "iterm2", "auto", or "" for false (no images).
type ImageProtocol struct{ Value string }

func (p *ImageProtocol) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		p.Value = s
		return nil
	}
	p.Value = "" // false
	return nil
}

func (p ImageProtocol) MarshalJSON() ([]byte, error) {
	if p.Disabled() {
		return []byte("false"), nil
	}
	return json.Marshal(p.Value)
}

// Disabled reports terminal.images false: never show inline images.
func (p ImageProtocol) Disabled() bool { return p.Value == "" }

// ProviderTimeoutMs is retry.provider.timeoutMs, defaulting to
// httpIdleTimeoutMs. 0 means no timeout.
func (s *Settings) ProviderTimeoutMs() int {
	if s.Retry.Provider.TimeoutMs != nil {
		return *s.Retry.Provider.TimeoutMs
	}
	return s.HTTPIdleTimeoutMs
}

// ExternalEditorCommand is externalEditor, else envEditor ($VISUAL, else
// $EDITOR: config.Terminal.Editor), else notepad on Windows and nano
// elsewhere.
func (s *Settings) ExternalEditorCommand(envEditor string) string {
	if strings.TrimSpace(s.ExternalEditor) != "" {
		return s.ExternalEditor
	}
	if envEditor != "" {
		return envEditor
	}
	if runtime.GOOS == "windows" {
		return "notepad"
	}
	return "nano"
}

// CompactionSettings are the compaction values for one model.
type CompactionSettings struct {
	Enabled          bool
	ReserveTokens    int
	KeepRecentTokens int
}

// CompactionFor resolves each token value independently: the
// compaction.modelOverrides["provider/modelId"] value, then the ordinary
// compaction value, then the built-in default. enabled is global only.
func (s *Settings) CompactionFor(provider, modelID string) CompactionSettings {
	c := CompactionSettings{
		Enabled:          s.Compaction.Enabled,
		ReserveTokens:    s.Compaction.ReserveTokens,
		KeepRecentTokens: s.Compaction.KeepRecentTokens,
	}
	if o, ok := s.Compaction.ModelOverrides[provider+"/"+modelID]; ok {
		if o.ReserveTokens != nil {
			c.ReserveTokens = *o.ReserveTokens
		}
		if o.KeepRecentTokens != nil {
			c.KeepRecentTokens = *o.KeepRecentTokens
		}
	}
	return c
}

// ThinkingLevelFor returns the modelThinkingLevels entry for exactly
// "provider/modelId", if any.
func (s *Settings) ThinkingLevelFor(provider, modelID string) (llm.ThinkingLevel, bool) {
	l, ok := s.ModelThinkingLevels[provider+"/"+modelID]
	return l, ok
}

// StartupThinkingLevel is the per-model level when set, else
// defaultThinkingLevel. Callers clamp it to what the model supports.
func (s *Settings) StartupThinkingLevel(provider, modelID string) llm.ThinkingLevel {
	if l, ok := s.ThinkingLevelFor(provider, modelID); ok {
		return l
	}
	return s.DefaultThinkingLevel
}

// LayaQuota is the share of provider's quota still available (default 1).
func (s *Settings) LayaQuota(provider string) float64 {
	if q, ok := s.Laya.Quota[provider]; ok {
		return q
	}
	return 1
}
