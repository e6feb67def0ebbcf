package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/resources"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/changelog"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui/keymap"
	"github.com/relay-agent/relay/internal/tui/theme"
	"github.com/relay-agent/relay/internal/tui/transcript"
	"github.com/relay-agent/relay/internal/versioncheck"
)

// AppOptions mirror cli.InteractiveOptions, so the composition root can
// hand them over field by field.
type AppOptions struct {
	Settings *settings.Settings
	AgentDir string
	Inputs   []app.Input
	Resume   bool
	Stdout   io.Writer
	Registry *models.Registry
	Version  string
	// Resources are the options the skills and templates were loaded with
	// (flags included), for /reload; nil rebuilds them from the trust state
	// and the loaded set.
	Resources *app.ResourceOptions
	// Loaded holds the skills and templates the runtime uses (the
	// composition root's, shared with the runtime); /reload replaces its
	// set. nil: none loaded.
	Loaded *app.Resources
	// Models are the runtime's models and the scope ctrl+p cycles through.
	Models app.ModelCycle
	// Shell runs !commands.
	Shell app.UserShell
	// Env is the environment read once by the CLI.
	Env config.Env
	// Bugs writes /bug reports for the dialog; nil: /bug without options.
	Bugs BugWriter
	// Warnings from start-up (e.g. a resumed session's model that could
	// not be restored), shown with the other start-up warnings.
	Warnings []string
	// ThemePaths are the theme files of this run in precedence order
	// (--theme, project .relay/themes, settings, the agent dir's themes/,
	// packages; first wins on a name). nil keeps the agent dir's themes/.
	ThemePaths []string
	// Hooks and Commands are the seam and the command registry the
	// runtime was built with (nil: empty ones).
	Hooks    *hooks.Set
	Commands *commands.Registry
}

// applyThemePaths replaces the custom themes with the files of paths
// (nil: keep what OptionsFromSettings found).
func applyThemePaths(opts *Options, paths []string) {
	if paths == nil {
		return
	}
	themes, errs := theme.LoadFiles(paths)
	opts.CustomThemes = map[string]*theme.Theme{}
	for _, t := range themes {
		if _, ok := opts.CustomThemes[t.Name]; !ok {
			opts.CustomThemes[t.Name] = t
		}
	}
	for _, e := range errs {
		opts.StartupWarnings = append(opts.StartupWarnings, e.Error())
	}
}

// RunApp runs the UI on an app.Runtime with options taken from settings.
func RunApp(ctx context.Context, rt *app.Runtime, o AppOptions) error {
	if o.Hooks == nil {
		o.Hooks = hooks.New()
	}
	if o.Commands == nil {
		o.Commands = commands.New()
	}
	if o.Loaded == nil {
		o.Loaded = app.NewResources(nil)
	}
	ar := &AppRuntime{Runtime: rt, Registry: o.Registry, AgentDir: o.AgentDir, Settings: o.Settings, bugs: o.Bugs, cmds: o.Commands, models: o.Models, shell: o.Shell}
	opts := OptionsFromSettings(o.Settings, o.AgentDir, o.Env)
	applyThemePaths(&opts, o.ThemePaths)
	opts.Version = o.Version
	opts.Output = o.Stdout
	opts.OpenResume = o.Resume
	if len(o.Inputs) > 0 {
		opts.InitialPrompt = o.Inputs[0].Text
		opts.InitialImages = o.Inputs[0].Images
		// Further message arguments are separate prompts, each after the
		// previous one finished (§1.5): follow-ups do exactly that.
		for _, in := range o.Inputs[1:] {
			rt.FollowUp(in.Text, in.Images)
		}
	}
	opts.OnCommand = ar.command
	// Features' status (Laya's routed task and why it is not running) on
	// the status line; the footer names the physical model.
	opts.StatusLine = func() string { line, _ := o.Hooks.RunStatus(context.Background()); return line }
	opts.FooterModel = func() string { _, footer := o.Hooks.RunStatus(context.Background()); return footer }
	for _, c := range o.Commands.All(commands.Prompt, commands.Skill, commands.Extension) {
		opts.Commands = append(opts.Commands, Command{Name: c.Name, Description: c.Description})
	}
	opts.StartupNotes = startupNotes(o.Loaded.Get(), o.Settings)
	if text, warn := startupChangelog(o.Settings, o.AgentDir, len(rt.ContextMessages()) > 0); warn != "" {
		opts.StartupWarnings = append(opts.StartupWarnings, warn)
	} else {
		opts.Changelog = text
	}
	opts.CollapseChangelog = o.Settings != nil && o.Settings.CollapseChangelog
	opts.UpdateCheck = updateCheck(o.Env, versioncheck.GitHub{}, o.Version)
	if o.Registry != nil {
		opts.SubscriptionAuth = subscriptionAuth(o.Settings, o.Registry.AuthSource)
	}
	opts.StartupNotices = append(opts.StartupNotices, o.Warnings...)
	if set := o.Loaded.Get(); set != nil {
		for _, d := range set.Diagnostics {
			opts.StartupWarnings = append(opts.StartupWarnings, d.String())
		}
	}
	opts.Completer = &FileCompleter{Root: rt.Session().Cwd()}
	opts.Registry = o.Commands
	opts.Reload = appReload(rt, ar, o)
	// Extensions and the harness's authorization gate reach the person here.
	opts.Approver = NewApprover()
	defer o.Hooks.BindUI(opts.Approver)()
	opts.Notices = func(fn func(string)) func() {
		return o.Hooks.SubscribeNotices(func(n hooks.Notice) { fn(n.Text) })
	}
	opts.Renderers = o.Hooks
	opts.Shown = o.Hooks.SubscribeShown
	return Run(ctx, ar, opts)
}

// OptionsFromSettings maps settings, keybindings.json and theme files to
// Options. Problems become start-up warnings, never failures.
func OptionsFromSettings(s *settings.Settings, agentDir string, env config.Env) Options {
	if s == nil {
		s = settings.Defaults()
	}
	o := Options{
		Fullscreen:             s.TUIMode != "regular",
		FullscreenScrollbar:    s.FullscreenScrollbar,
		FullscreenExitOutput:   s.FullscreenExitOutput,
		CopyOnSelect:           s.FullscreenCopyOnSelect,
		TerminalProgress:       s.Terminal.ShowTerminalProgress,
		FullscreenWheelLines:   s.FullscreenWheelScrollLines.Lines,
		QuietStartup:           s.QuietStartup.Quiet,
		HeaderOnly:             s.QuietStartup.HeaderOnly,
		OutputPad:              s.OutputPad,
		EditorPaddingX:         s.EditorPaddingX,
		AutocompleteMaxVisible: s.AutocompleteMaxVisible,
		ShowHardwareCursor:     s.ShowHardwareCursor || env.Terminal.HardwareCursor,
		HideThinkingBlock:      s.HideThinkingBlock,
		DoubleEscapeAction:     s.DoubleEscapeAction,
		TreeFilterMode:         s.TreeFilterMode,
		BranchSummarySkip:      s.BranchSummary.SkipPrompt,
		CodeBlockIndent:        s.Markdown.CodeBlockIndent,
		Mermaid:                s.Markdown.Mermaid,
		Hyperlinks:             s.Terminal.Hyperlinks.Set && s.Terminal.Hyperlinks.Value,
		Images:                 imageOptions(s, env.Get),
		ClearOnShrink:          s.Terminal.ClearOnShrink,
		EscTimeout:             EscTimeout(env.Get),
		ExternalEditor:         s.ExternalEditorCommand(env.Terminal.Editor),
		ThemeSetting:           s.Theme,
		Terminal:               theme.Terminal{ColorFGBG: env.Terminal.ColorFGBG},
		Env:                    env,
	}
	// Settings beat the environment; "auto" leaves detection on.
	if !s.Terminal.Hyperlinks.Set {
		switch e := env.Terminal.Hyperlinks; e {
		case "", "auto":
			o.Hyperlinks = DetectHyperlinks(env.Get)
		default:
			o.Hyperlinks = envBool(e)
		}
	}
	if s.Terminal.TrueColor.Set {
		v := s.Terminal.TrueColor.Value
		o.TrueColor = &v
	} else if e := env.Terminal.TrueColor; e != "" && e != "auto" {
		v := envBool(e)
		o.TrueColor = &v
	}
	load := func() (ReloadResult, error) {
		var r ReloadResult
		km, warns, err := keymap.Load(agentDir, keymap.DetectPlatform(env.Terminal.WSL))
		r.Keymap = km
		r.Warnings = append(r.Warnings, warns...)
		if err != nil {
			r.Warnings = append(r.Warnings, err.Error())
		}
		themes, errs := theme.LoadDir(filepath.Join(agentDir, "themes"))
		r.CustomThemes = map[string]*theme.Theme{}
		for _, t := range themes {
			r.CustomThemes[t.Name] = t
		}
		for _, e := range errs {
			r.Warnings = append(r.Warnings, e.Error())
		}
		r.ThemeSetting = s.Theme
		return r, nil
	}
	r, _ := load()
	o.Keymap, o.StartupWarnings, o.CustomThemes = r.Keymap, r.Warnings, r.CustomThemes
	o.Reload = load
	return o
}

// startupNotes lists the model scope and the loaded skills and templates.
// startupChangelog is the changelog shown once after an update (not when
// a session is resumed: its transcript comes first) and records the
// version in lastChangelogVersion.
func startupChangelog(s *settings.Settings, agentDir string, resumed bool) (text, warn string) {
	if resumed || s == nil || agentDir == "" {
		return "", ""
	}
	show, record := changelog.Startup(s.LastChangelogVersion)
	if record != "" {
		if err := settings.SetUser(agentDir, []string{"lastChangelogVersion"}, record); err != nil {
			return "", "could not record the changelog version: " + err.Error()
		}
	}
	return show, ""
}

// subscriptionAuth is Options.SubscriptionAuth from the credential
// sources; nil when warnings.anthropicExtraUsage is false.
func subscriptionAuth(s *settings.Settings, source func(provider string) string) func(string) bool {
	if s != nil && !s.Warnings.AnthropicExtraUsage {
		return nil
	}
	return func(provider string) bool { return source(provider) == models.SourceAuthOAuth }
}

// updateCheck is the latest-release check for Options.UpdateCheck; nil
// when RELAY_SKIP_VERSION_CHECK or offline mode turn it off.
func updateCheck(env config.Env, src versioncheck.Source, version string) func(context.Context) string {
	if !versioncheck.Enabled(env) {
		return nil
	}
	return func(ctx context.Context) string { return versioncheck.Notice(ctx, src, version) }
}

func startupNotes(set *resources.Set, s *settings.Settings) []string {
	var notes []string
	if s != nil && len(s.EnabledModels) > 0 {
		notes = append(notes, "Scoped models: "+strings.Join(s.EnabledModels, ", "))
	}
	if set != nil {
		if n := len(set.Skills); n > 0 {
			names := make([]string, 0, n)
			for _, sk := range set.Skills {
				names = append(names, sk.Name)
			}
			notes = append(notes, fmt.Sprintf("Skills (%d): %s", n, strings.Join(names, ", ")))
		}
		if n := len(set.Templates); n > 0 {
			names := make([]string, 0, n)
			for _, t := range set.Templates {
				names = append(names, "/"+t.Name)
			}
			notes = append(notes, fmt.Sprintf("Prompt templates (%d): %s", n, strings.Join(names, ", ")))
		}
	}
	return notes
}

func envBool(value string) bool {
	switch strings.ToLower(value) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// AppRuntime adapts *app.Runtime to Runtime (and Configurator when it
// has a registry and an agent directory).
type AppRuntime struct {
	*app.Runtime
	Registry *models.Registry
	AgentDir string
	Settings *settings.Settings

	bugs   BugWriter
	cmds   *commands.Registry
	models app.ModelCycle
	shell  app.UserShell

	mu         sync.Mutex
	changed    map[string]any     // settings saved during this run
	bashCancel context.CancelFunc // the running !command
}

// BugWriter writes /bug reports (the bugreport feature).
type BugWriter interface {
	Report(ctx context.Context, description, transcript string) (string, error)
	Notes() (disclaimer, transcript, summary string)
}

var _ Configurator = (*AppRuntime)(nil)

func (a *AppRuntime) SaveDefaultModel(m *llm.Model) error {
	return settings.SetDefaultModel(a.AgentDir, m.Provider, m.ID)
}

func (a *AppRuntime) SaveThinkingLevel(l llm.ThinkingLevel) error {
	return settings.SetDefaultThinkingLevel(a.AgentDir, l)
}

func (a *AppRuntime) Providers() []ProviderStatus {
	if a.Registry == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []ProviderStatus
	names := a.Registry.SignInProviders() // subscriptions may have no catalog model yet
	for _, m := range a.Registry.All() {
		names = append(names, m.Provider)
	}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		st := ProviderStatus{Name: name, Source: a.Registry.AuthSource(name)}
		if c, err := a.Registry.Auth().Get(name); err == nil && c != nil {
			st.Stored = true
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SignInProvider reports whether provider has a subscription sign-in
// (/login runs the registered command for it instead of asking for a key).
func (a *AppRuntime) SignInProvider(provider string) bool {
	if a.Registry == nil {
		return false
	}
	for _, id := range a.Registry.SignInProviders() {
		if id == provider {
			return true
		}
	}
	return false
}

// Login and Logout run the registered /login and /logout (package
// apikeys), which save through the model source.
func (a *AppRuntime) Login(provider, key string) error {
	return a.runCommand("/login " + provider + " " + key)
}

func (a *AppRuntime) Logout(provider string) error {
	return a.runCommand("/logout " + provider)
}

func (a *AppRuntime) runCommand(line string) error {
	_, handled, err := a.cmds.Run(context.Background(), line)
	if !handled {
		return fmt.Errorf("%s is not available", strings.Fields(line)[0])
	}
	return err
}

func (a *AppRuntime) EnabledModels() []string {
	if v, ok := a.Setting("enabledModels").([]any); ok {
		var out []string
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	if v, ok := a.Setting("enabledModels").([]string); ok {
		return v
	}
	return nil
}

func (a *AppRuntime) SaveEnabledModels(ids []string) error {
	if ids == nil {
		return a.SetSetting("enabledModels", nil)
	}
	return a.SetSetting("enabledModels", ids)
}

// Setting reads a dotted key from the settings loaded at start, updated
// with what was saved since.
func (a *AppRuntime) Setting(key string) any {
	a.mu.Lock()
	v, ok := a.changed[key]
	st := a.Settings // replaced by /reload
	a.mu.Unlock()
	if ok {
		return v
	}
	if st == nil {
		return nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil
	}
	var cur any
	if json.Unmarshal(b, &cur) != nil {
		return nil
	}
	for _, seg := range strings.Split(key, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[seg]
	}
	if f, ok := cur.(float64); ok && f == float64(int(f)) {
		return int(f)
	}
	return cur
}

func (a *AppRuntime) SetSetting(key string, value any) error {
	path, err := settings.ParseKey(key)
	if err != nil {
		return err
	}
	if err := settings.SetUser(a.AgentDir, path, value); err != nil {
		return err
	}
	a.mu.Lock()
	if a.changed == nil {
		a.changed = map[string]any{}
	}
	a.changed[key] = value
	a.mu.Unlock()
	return nil
}

var _ Runtime = (*AppRuntime)(nil)

func (a *AppRuntime) Dequeue() []string {
	steer, follow := a.ClearQueue()
	var out []string
	for _, m := range append(steer, follow...) {
		out = append(out, agent.MessageText(m))
	}
	return out
}

// Model is the selected model (nil when none).
func (a *AppRuntime) Model() *llm.Model { return a.State().Model }

// ThinkingLevel is the effective thinking level.
func (a *AppRuntime) ThinkingLevel() llm.ThinkingLevel { return a.State().ThinkingLevel }

// AvailableModels lists the models with credentials.
func (a *AppRuntime) AvailableModels() []*llm.Model { return a.models.Available() }

// CycleModel moves through the scoped (or all) models.
func (a *AppRuntime) CycleModel(forward bool) (*llm.Model, llm.ThinkingLevel, bool, bool) {
	return app.CycleModel(a.Runtime, a.models, forward)
}

// CycleThinkingLevel moves to the model's next thinking level.
func (a *AppRuntime) CycleThinkingLevel() (llm.ThinkingLevel, bool) {
	return app.CycleThinkingLevel(a.Runtime)
}

// AbortBash cancels the running !command, if any.
func (a *AppRuntime) AbortBash() {
	a.mu.Lock()
	c := a.bashCancel
	a.mu.Unlock()
	if c != nil {
		c()
	}
}

func (a *AppRuntime) Bash(ctx context.Context, command string, exclude bool, onChunk func(string)) (BashResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	a.bashCancel = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.bashCancel = nil
		a.mu.Unlock()
		cancel()
	}()
	r, err := a.shell.Run(ctx, command, exclude, onChunk)
	out := BashResult{Output: r.Output, ExitCode: r.ExitCode, Cancelled: r.Cancelled, Truncated: r.Truncated}
	if err != nil {
		return out, err
	}
	if a.State().IsStreaming {
		// Appending now could split an assistant message from its tool
		// results; the run's end is the next safe point.
		go func() {
			a.WaitIdle()
			_ = app.RecordBash(a.Session(), command, r, exclude)
		}()
		return out, nil
	}
	return out, app.RecordBash(a.Session(), command, r, exclude)
}

func (a *AppRuntime) NewSession() error { return a.Runtime.NewSession("") }

func (a *AppRuntime) IsStreaming() bool { return a.State().IsStreaming }

func (a *AppRuntime) AvailableThinkingLevels() []llm.ThinkingLevel {
	return app.ThinkingLevels(a.Model())
}

func (a *AppRuntime) Info() Info {
	st := app.Stats(a.Runtime)
	s := a.Session()
	in := Info{Cwd: s.Cwd(), SessionFile: st.SessionFile, SessionID: st.SessionID, SessionName: s.Name(),
		InputTokens: st.Tokens.Input, OutputTokens: st.Tokens.Output, CacheRead: st.Tokens.CacheRead,
		CacheWrite: st.Tokens.CacheWrite, Cost: st.Cost, Messages: st.TotalMessages}
	if cu := st.ContextUsage; cu != nil {
		in.ContextWindow = cu.ContextWindow
		if cu.Tokens != nil {
			in.ContextTokens = *cu.Tokens
		}
	} else if m := a.Model(); m != nil {
		in.ContextWindow = m.ContextWindow
	}
	return in
}

func (a *AppRuntime) ListSessions(all bool) ([]SessionItem, error) {
	s := a.Session()
	dir := s.SessionDir()
	if dir == "" {
		return nil, errors.New("sessions are not saved in this run (--no-session)")
	}
	var infos []session.SessionInfo
	var err error
	if all {
		infos, err = session.ListAll(filepath.Dir(dir))
	} else {
		infos, err = session.List(s.Cwd(), dir)
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]SessionItem, 0, len(infos))
	for _, in := range infos {
		out = append(out, SessionItem{Path: in.Path, ID: in.ID, Name: in.Name, Cwd: in.Cwd, Created: in.Created,
			Modified: in.Modified, Messages: in.MessageCount, FirstMessage: in.FirstMessage})
	}
	return out, nil
}

// DeleteSession moves the file to the trash with the `trash` command when
// it is installed, and deletes it otherwise.
func (a *AppRuntime) DeleteSession(path string) error {
	if path == a.Session().SessionFile() {
		return errors.New("the current session cannot be deleted")
	}
	if t, err := exec.LookPath("trash"); err == nil {
		if out, err := exec.Command(t, path).CombinedOutput(); err != nil {
			return fmt.Errorf("trash %s: %v: %s", path, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	return os.Remove(path)
}

func (a *AppRuntime) RenameSession(path, name string) error {
	if path == a.Session().SessionFile() {
		return a.SetSessionName(name)
	}
	m, err := session.Open(path, "")
	if err != nil {
		return err
	}
	defer m.Close()
	_, err = m.AppendSessionInfo(name)
	return err
}

func (a *AppRuntime) ForkPoints() []ForkPoint {
	var out []ForkPoint
	for _, f := range app.ForkMessages(a.Session()) {
		out = append(out, ForkPoint{EntryID: f.EntryID, Text: f.Text})
	}
	return out
}

func (a *AppRuntime) NavigateTree(ctx context.Context, targetID string, summarize bool, instructions string) (string, error) {
	r, err := a.Runtime.NavigateTree(ctx, targetID, summarize, instructions)
	return r.EditorText, err
}

func (a *AppRuntime) SetLabel(entryID, label string) error {
	_, err := a.Session().AppendLabel(entryID, label)
	return err
}

// treeMessageText is a message's one-line text in /tree: its text, the
// names of the tools an assistant message only calls, a tool result's
// call (name and argument summary, from calls by id), or a ! command.
func treeMessageText(m llm.Message, calls map[string]*llm.ToolCall) (text string, toolsOnly bool) {
	switch m := m.(type) {
	case *llm.ToolResultMessage:
		var args map[string]any
		name := m.ToolName
		if tc := calls[m.ToolCallID]; tc != nil {
			json.Unmarshal(tc.Arguments, &args)
			if name == "" {
				name = tc.Name
			}
		}
		if name == "" {
			name = "tool"
		}
		text = strings.TrimSpace(transcript.ToolSummary(name, args))
		if m.IsError {
			text += " (error)"
		}
		return text, false
	case *llm.AssistantMessage:
		if strings.TrimSpace(m.Text()) == "" && len(m.ToolCalls()) > 0 {
			var names []string
			for _, tc := range m.ToolCalls() {
				names = append(names, tc.Name)
			}
			return "(" + strings.Join(names, ", ") + ")", true
		}
	case *llm.BashExecutionMessage:
		// MessageText has no text for it: the command is what tells
		// two ! runs apart.
		if m.ExcludeFromContext {
			return m.Command + " (excluded from context)", false
		}
		return m.Command, false
	}
	return strings.TrimSpace(agent.MessageText(m)), false
}

// Tree lists every entry with its one-line text, current label (and the
// label's time), and whether it is on the active branch.
func (a *AppRuntime) Tree() []TreeNode {
	s := a.Session()
	onPath := map[string]bool{}
	for _, e := range s.Branch("") {
		onPath[e.ID] = true
	}
	leaf := s.LeafID()
	entries := s.Entries()
	type lab struct {
		text string
		at   int
	}
	labels := map[string]lab{}
	for i, e := range entries {
		if l := e.Label(); l != nil {
			if l.Label == nil || *l.Label == "" {
				delete(labels, l.TargetID)
			} else {
				labels[l.TargetID] = lab{*l.Label, i}
			}
		}
	}
	out := make([]TreeNode, 0, len(entries))
	calls := map[string]*llm.ToolCall{} // a result's row names its call
	for _, e := range entries {
		n := TreeNode{ID: e.ID, ParentID: e.ParentID, Kind: e.Type, Timestamp: e.Time(), OnPath: onPath[e.ID], Leaf: e.ID == leaf}
		if l, ok := labels[e.ID]; ok {
			n.Label, n.LabelTime = l.text, entries[l.at].Time()
		}
		switch {
		case e.Type == session.TypeMessage:
			n.Kind = e.Role()
			if m, err := e.Message(); err == nil && m != nil {
				if am, ok := m.(*llm.AssistantMessage); ok {
					for _, tc := range am.ToolCalls() {
						calls[tc.ID] = tc
					}
				}
				n.Text, n.HasTools = treeMessageText(m, calls)
			}
		case e.Compaction() != nil:
			n.Text = fmt.Sprintf("Compaction (%d tokens): %s", e.Compaction().TokensBefore, firstLine(e.Compaction().Summary))
		case e.BranchSummary() != nil:
			n.Text = "Branch summary: " + firstLine(e.BranchSummary().Summary)
		case e.ModelChange() != nil:
			n.Text = "model " + e.ModelChange().Provider + "/" + e.ModelChange().ModelID
		case e.ThinkingLevelChange() != nil:
			n.Text = "thinking " + e.ThinkingLevelChange().ThinkingLevel
		case e.CustomMessage() != nil:
			n.Text = e.CustomMessage().CustomType + ": " + firstLine(e.CustomMessage().Content.PlainText())
		case e.Custom() != nil:
			n.Text = e.Custom().CustomType
		case e.SessionInfo() != nil && e.SessionInfo().Name != nil:
			n.Text = "name: " + *e.SessionInfo().Name
		case e.Label() != nil:
			n.Text = "label"
		}
		out = append(out, n)
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

var _ BugReporter = (*AppRuntime)(nil)

func (a *AppRuntime) BugReport(ctx context.Context, description, transcript string) (string, error) {
	if a.bugs == nil {
		return "", errors.New("bug reports are not available")
	}
	return a.bugs.Report(ctx, description, transcript)
}

func (a *AppRuntime) BugNotes() (string, string, string) {
	if a.bugs == nil {
		return "", "", ""
	}
	return a.bugs.Notes()
}

// command runs the slash commands app.Runtime owns (/export, /import,
// /share, /bug, /debug, /laya, /trust, /changelog, /harness ...).
func (a *AppRuntime) command(ctx context.Context, name, args string) (string, error) {
	out, handled, err := a.cmds.Run(ctx, strings.TrimSpace("/"+name+" "+args))
	if !handled {
		return "", fmt.Errorf("/%s is not available yet", name)
	}
	return out.Text, err
}
