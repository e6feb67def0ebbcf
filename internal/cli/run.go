package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/jsonmode"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/printmode"
	"github.com/relay-agent/relay/internal/rpcmode"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool/builtin"
	"github.com/relay-agent/relay/internal/tui"
)

type mode int

const (
	modeTUI mode = iota
	modePrint
	modeJSON
	modeRPC
)

func selectMode(a *Args, stdin any, stdout any) mode {
	switch {
	case a.Mode == "rpc":
		return modeRPC
	case a.Mode == "json":
		return modeJSON
	case a.Print || !isTTY(stdin) || !isTTY(stdout):
		return modePrint
	}
	return modeTUI
}

func run(ctx context.Context, a *Args, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if a.Offline {
		os.Setenv(config.EnvOffline, "1")
	}
	os.Setenv("AI_AGENT", "relay")
	os.Setenv("RELAY_CODING_AGENT", "true")
	agentDir, err := config.AgentDir()
	if err != nil {
		return 1, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 1, fmt.Errorf("working directory: %w", err)
	}
	if a.ExportSet {
		return runExport(a, cwd, stdout)
	}
	m := selectMode(a, stdin, stdout)

	// Settings: user file first (trust defaults live there), then the
	// project file once trust is decided.
	userSettings, _ := settings.Load(settings.LoadOptions{AgentDir: agentDir})
	trust := settings.DecideTrust(settings.TrustInput{Cwd: cwd, Flag: a.Approve, Store: settings.NewTrustStore(agentDir),
		Default: userSettings.DefaultProjectTrust, Interactive: m == modeTUI})
	st, diags := settings.Load(settings.LoadOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trust.Trusted})
	for _, d := range diags {
		fmt.Fprintln(stderr, settingsDiagLine(d))
	}
	for _, e := range a.Extensions {
		// Said out loud: a script passing -e expects the extension's tools
		// and hooks, and relay has no extension runtime yet.
		fmt.Fprintf(stderr, "Warning: extensions are not supported yet; ignoring -e %s\n", e)
	}
	if !trust.Trusted && settings.NeedsTrust(cwd) && m != modeTUI {
		fmt.Fprintln(stderr, "Note: project .relay resources were not loaded (project not trusted; use --approve to trust it).")
	}
	if st.HTTPProxy != "" {
		os.Setenv("HTTP_PROXY", st.HTTPProxy)
		os.Setenv("HTTPS_PROXY", st.HTTPProxy)
	}

	reg, regErr := models.Load(agentDir)
	if regErr != nil {
		fmt.Fprintln(stderr, "Warning:", regErr)
	}
	if a.ListModels {
		list := reg.Available(ctx)
		if len(list) == 0 {
			fmt.Fprintln(stderr, "No provider has credentials yet; listing every known model. Set an API key (e.g. ANTHROPIC_API_KEY) or use /login.")
			list = reg.All()
		}
		if err := models.FormatList(stdout, list, a.ListSearch); err != nil {
			return 1, err
		}
		return 0, nil
	}

	if m == modeRPC && len(a.Files) > 0 {
		return 1, usageErr("@file arguments are not supported in RPC mode")
	}
	inputs, err := buildInputs(a, stdin, m, cwd, imageOptions{autoResize: st.Images.AutoResize, block: st.Images.BlockImages})
	if err != nil {
		return 1, err
	}
	if m == modeTUI && len(inputs) > 0 && inputs[0].fromStdin {
		m = modePrint
	}

	// JSON and RPC stdout carries protocol records only: the --resume
	// listing (and any other text) goes to stderr there.
	listOut := stdout
	if m == modeRPC || m == modeJSON {
		listOut = stderr
	}
	var ask io.Reader
	if m == modeTUI && isTTY(stdin) {
		ask = stdin
	}
	sess, code, err := openSession(a, st, agentDir, cwd, m, ask, listOut, stderr)
	if sess == nil {
		if err == nil && a.Resume && len(inputs) > 0 {
			fmt.Fprintln(stderr, "Note: the prompt was not sent: --resume only lists sessions without a terminal; pass --session ID to continue one.")
		}
		return code, err
	}
	if m == modeTUI && sess.IsPersisted() {
		// Warm the session listing cache while the person reads the
		// screen, so the first /resume on a large store is instant.
		root := sess.SessionDir()
		if root == session.DefaultDir(agentDir, cwd) {
			root = filepath.Dir(root)
		}
		go func() {
			time.Sleep(2 * time.Second)
			_, _ = session.ListAll(root)
		}()
	}

	// Model and thinking level.
	src := &modelSource{reg: reg}
	var scoped []app.ScopedModel
	patterns := a.Models
	if len(patterns) == 0 {
		patterns = st.EnabledModels
	}
	if len(patterns) > 0 {
		sm, warns := reg.Scope(ctx, patterns)
		for _, w := range warns {
			fmt.Fprintln(stderr, "Warning:", w)
		}
		for _, s := range sm {
			scoped = append(scoped, app.ScopedModel{Model: s.Model, Thinking: s.Thinking})
		}
	}
	// The TUI shows model warnings on its own screen, not on stderr
	// behind it.
	var modelNotes strings.Builder
	notesTo := stderr
	if m == modeTUI {
		notesTo = &modelNotes
	}
	model, thinking, err := chooseModel(ctx, a, st, reg, sess, scoped, notesTo)
	if err != nil {
		sess.Close()
		return 1, err
	}
	if a.APIKey != "" && model != nil {
		src.cliKey, src.keyFor = a.APIKey, model.Provider
	}
	if model == nil && m != modeTUI && m != modeRPC {
		sess.Close()
		return 1, fmt.Errorf("no model available: set an API key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), configure models.json, or pass --model")
	}

	seam, cmds := hooks.New(), commands.New()
	var rt *app.Runtime
	if core := harnessConfig(st, cwd); core != nil {
		// Skills follow /reload, so the list is read from the runtime
		// when a run asks (SkillInfos is nil-safe).
		core.SkillList = func() []harness.SkillInfo { return rt.SkillInfos() }
		if _, err := harness.New(*core).Register(seam, cmds); err != nil {
			sess.Close()
			return 1, err
		}
	} else {
		_ = cmds.Register(commands.Command{Name: "harness", Description: "Show the harness-core status", Source: commands.Builtin,
			Run: func(context.Context, string) (commands.Output, error) {
				return commands.Output{Text: "Harness core is off (enable the harnessCore.* settings)."}, nil
			}})
	}
	reg2, active, toolWarns := buildTools(a, st, cwd, func() *app.Runtime { return rt })
	for _, w := range toolWarns {
		fmt.Fprintln(stderr, "Warning:", w)
	}
	cfg := app.Config{
		Cwd: cwd, AgentDir: agentDir, Session: sess, Models: src, Model: model, Thinking: thinking, DefaultThinking: st.DefaultThinkingLevel, ScopedModels: scoped,
		Tools: reg2, ActiveTools: active, Hooks: seam, Commands: cmds,
		NoContext:  a.NoContext,
		Compaction: compactionSettings(st.Compaction.Enabled, st.CompactionFor("", "")),
		CompactionFor: func(p, id string) compaction.Settings {
			return compactionSettings(st.Compaction.Enabled, st.CompactionFor(p, id))
		},
		BranchReserve:   st.BranchSummary.ReserveTokens,
		Retry:           agent.RetryPolicy{Enabled: st.Retry.Enabled, MaxRetries: st.Retry.MaxRetries, BaseDelay: ms(st.Retry.BaseDelayMs), MaxDelay: ms(st.Retry.MaxAgentDelayMs)},
		ProviderRetries: providerRetries(st.Retry), ProviderMaxDelay: ms(st.Retry.Provider.MaxRetryDelayMs),
		IdleTimeout:     ms(st.ProviderTimeoutMs()),
		CacheRetention:  cacheRetention(),
		ThinkingBudgets: st.ThinkingBudgets,
		SteeringMode:    string(st.SteeringMode), FollowUpMode: string(st.FollowUpMode),
	}
	cfg.DefaultModel = func() *llm.Model {
		if m := reg.Find(st.DefaultProvider, st.DefaultModel); m != nil && reg.HasAuth(m.Provider) {
			return m
		}
		return reg.DefaultModel(ctx)
	}
	cfg.CustomPrompt, cfg.AppendPrompt = systemPromptFiles(a, agentDir, cwd, trust.Trusted)
	shellEnv := builtin.Env{Cwd: cwd, ShellPath: st.ShellPath, ShellCommandPrefix: st.ShellCommandPrefix}
	cfg.Shell = func(ctx context.Context, command string, onChunk func(string)) (app.BashResult, error) {
		r, err := builtin.RunShell(ctx, shellEnv, command, onChunk)
		return app.BashResult{Output: r.Output, ExitCode: r.ExitCode, Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath}, err
	}
	rt, err = app.New(cfg)
	if err != nil {
		sess.Close()
		return 1, err
	}
	defer rt.Close()
	resOpts := app.ResourceOptions{Settings: st, Cwd: cwd, AgentDir: agentDir, ProjectTrusted: trust.Trusted,
		SkillPaths: a.Skills, PromptPaths: a.Prompts, NoSkills: a.NoSkills, NoPrompts: a.NoPrompts}
	rt.SetResources(app.LoadResources(resOpts))
	for _, d := range rt.Resources().Diagnostics {
		fmt.Fprintln(stderr, "Warning:", d)
	}
	rt.EnableLaya(st, a.LayaPolicy, m == modeTUI, Version)
	if model != nil && sess.LeafID() == "" {
		_, _ = sess.AppendModelChange(model.Provider, model.ID)
		_, _ = sess.AppendThinkingLevelChange(string(rt.ThinkingLevel()))
	}
	if a.Name != nil {
		if err := rt.SetSessionName(*a.Name); err != nil {
			return 1, err
		}
	}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	exitCode := make(chan int, 1)
	if m != modeTUI {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
		defer signal.Stop(sigs)
		go func() {
			s, ok := <-sigs
			if !ok {
				return
			}
			switch s {
			case syscall.SIGTERM:
				exitCode <- 143
			case syscall.SIGHUP:
				exitCode <- 129
			default:
				exitCode <- 130
			}
			stop()
		}()
	}
	plain := make([]app.Input, 0, len(inputs))
	for _, in := range inputs {
		plain = append(plain, in.Input)
	}
	var rc int
	switch m {
	case modeRPC:
		rc = rpcmode.Serve(ctx, rt, stdin, stdout, exportHTML)
	case modeJSON:
		rc = jsonmode.Run(ctx, rt, plain, stdout, stderr)
	case modePrint:
		if model == nil {
			return 1, fmt.Errorf("no model available")
		}
		rc = printmode.Run(ctx, rt, plain, stdout, stderr)
	default:
		// Flags beat settings for this run only.
		if a.TUIMode != "" {
			st.TUIMode = a.TUIMode
		}
		if a.UseTheme != "" {
			st.Theme = a.UseTheme
		}
		if a.Verbose {
			st.QuietStartup = settings.QuietStartup{}
		}
		if err := tui.RunApp(ctx, rt, tui.AppOptions{Settings: st, AgentDir: agentDir, Inputs: plain, Resume: a.Resume,
			Stdout: stdout, Registry: reg, Version: Version, Resources: &resOpts, Warnings: warningLines(modelNotes.String())}); err != nil {
			return 1, err
		}
	}
	select {
	case c := <-exitCode:
		return c, nil
	default:
	}
	return rc, nil
}

// settingsDiagLine words a settings problem for stderr. relay goes on with
// the value (or the file) ignored, so every one is a warning to the user,
// whatever its severity inside the settings package: "Error:" is kept for
// what makes relay exit 1.
func settingsDiagLine(d settings.Diagnostic) string {
	where := d.File
	if d.Key != "" {
		where += ": " + d.Key
	}
	return fmt.Sprintf("Warning: settings %s: %s", where, d.Message)
}

// warningLines splits "Warning: ..." lines written for stderr into
// warnings for the TUI.
func warningLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "Warning:")); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// providerRetries is how often the wire client retries a transient failure
// before anything streamed, invisibly (issue 17): retry.provider.maxRetries
// when set, else, while retry.enabled, the official SDKs' default, so a
// passing 503 never reaches the session; the agent-level retry handles
// what is left.
func providerRetries(r settings.Retry) int {
	switch {
	case r.Provider.MaxRetries > 0:
		return r.Provider.MaxRetries
	case r.Enabled:
		return llm.DefaultProviderRetries
	}
	return 0
}

func cacheRetention() llm.CacheRetention {
	if strings.EqualFold(os.Getenv("RELAY_CACHE_RETENTION"), "long") {
		return llm.CacheLong
	}
	return llm.CacheShort
}

func compactionSettings(enabled bool, c settings.CompactionSettings) compaction.Settings {
	return compaction.Settings{Enabled: enabled, ReserveTokens: c.ReserveTokens, KeepRecentTokens: c.KeepRecentTokens}
}

func harnessConfig(st *settings.Settings, cwd string) *harness.Config {
	h := st.HarnessCore
	if !h.Alignment && !h.AuthorizationGate && !h.ScopeGuard && !h.Evidence && !h.Context && !h.Skills {
		return nil
	}
	return &harness.Config{Alignment: h.Alignment, AuthorizationGate: h.AuthorizationGate, ScopeGuard: h.ScopeGuard,
		Evidence: h.Evidence, Context: h.Context, Skills: h.Skills, ContextKeepRecent: h.ContextKeepRecent,
		ContextBatchSize: h.ContextBatchSize, VerifyCommands: h.VerifyCommands, MaxChangedLines: h.MaxChangedLines,
		MaxFileLines: h.MaxFileLines, Cwd: cwd}
}

// systemPromptFiles resolves --system-prompt / SYSTEM.md and the addendum
// (--append-system-prompt values and APPEND_SYSTEM.md, project over agent).
func systemPromptFiles(a *Args, agentDir, cwd string, trusted bool) (string, []string) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return string(b)
	}
	custom := ""
	switch {
	case a.SystemPrompt != "":
		custom = app.ReadPromptArg(a.SystemPrompt, cwd)
	case trusted && read(filepath.Join(cwd, ".relay", "SYSTEM.md")) != "":
		custom = read(filepath.Join(cwd, ".relay", "SYSTEM.md"))
	default:
		custom = read(filepath.Join(agentDir, "SYSTEM.md"))
	}
	var appendix []string
	file := ""
	if trusted {
		file = read(filepath.Join(cwd, ".relay", "APPEND_SYSTEM.md"))
	}
	if file == "" {
		file = read(filepath.Join(agentDir, "APPEND_SYSTEM.md"))
	}
	if file != "" {
		appendix = append(appendix, file)
	}
	for _, v := range a.AppendSystem {
		appendix = append(appendix, app.ReadPromptArg(v, cwd))
	}
	return custom, appendix
}

// chooseModel applies --model, then the resumed branch's model, then the
// first model of the --models / enabledModels scope (with its thinking
// level), then the
// settings default, then the registry's default for a provider with keys.
func chooseModel(ctx context.Context, a *Args, st *settings.Settings, reg *models.Registry, sess *session.Manager, scoped []app.ScopedModel, stderr io.Writer) (*llm.Model, llm.ThinkingLevel, error) {
	var cliThinking llm.ThinkingLevel
	if a.Thinking != "" {
		l, ok := llm.ParseThinkingLevel(a.Thinking)
		if !ok {
			fmt.Fprintf(stderr, "Warning: invalid --thinking %q ignored (expected off, minimal, low, medium, high, xhigh or max)\n", a.Thinking)
		} else {
			cliThinking = l
		}
	}
	var model *llm.Model
	var thinking llm.ThinkingLevel
	if laya.IsAuto(a.Model) {
		model = laya.AutoModel()
	} else if a.Model != "" {
		res, err := reg.ResolveModel(a.Model, a.Provider, cliThinking)
		if err != nil {
			return nil, "", err
		}
		if res.Warning != "" {
			fmt.Fprintln(stderr, "Warning:", res.Warning)
		}
		model, thinking = res.Model, res.Thinking
	}
	restoreFailed := ""
	if model == nil && sess.LeafID() != "" {
		c := sess.BuildSessionContext()
		if c.Model != nil {
			ref := c.Model.Provider + "/" + c.Model.ModelID
			switch found := reg.Find(c.Model.Provider, c.Model.ModelID); {
			case laya.IsAuto(ref):
				model = laya.AutoModel()
			case found != nil && reg.HasAuth(found.Provider):
				model = found
			default:
				// Unknown now, or without credentials: like the original,
				// go on with the default model and say so, rather than
				// fail the first request.
				restoreFailed = "Could not restore model " + ref
			}
		}
		if l, ok := llm.ParseThinkingLevel(c.ThinkingLevel); ok && thinking == "" {
			thinking = l
		}
	}
	if model == nil && len(scoped) > 0 {
		model = scoped[0].Model
		if scoped[0].Thinking != "" {
			thinking = scoped[0].Thinking
		}
	}
	if model == nil && st.DefaultProvider != "" && st.DefaultModel != "" {
		model = reg.Find(st.DefaultProvider, st.DefaultModel)
		if restoreFailed != "" && model != nil && !reg.HasAuth(model.Provider) {
			model = nil
		}
	}
	if model == nil {
		model = reg.DefaultModel(ctx)
	}
	if restoreFailed != "" {
		if model != nil {
			restoreFailed += ". Using " + model.Provider + "/" + model.ID
		}
		fmt.Fprintln(stderr, "Warning: "+restoreFailed)
	}
	if cliThinking != "" {
		thinking = cliThinking
	}
	if thinking == "" && model != nil {
		thinking = st.StartupThinkingLevel(model.Provider, model.ID)
	}
	if thinking == "" {
		thinking = st.DefaultThinkingLevel
	}
	return model, thinking, nil
}
