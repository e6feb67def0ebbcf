package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/relay-agent/relay/internal/apikeys"
	"github.com/relay-agent/relay/internal/bugreport"
	"github.com/relay-agent/relay/internal/cachewarm"
	"github.com/relay-agent/relay/internal/tool"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/ext"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/jsonmode"
	"github.com/relay-agent/relay/internal/layaauto"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/mcp"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/printmode"
	"github.com/relay-agent/relay/internal/rpcmode"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/sessionshare"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool/builtin"
	"github.com/relay-agent/relay/internal/tui"
)

// launch carries what each step of the composition root produced for the
// next: parse -> configuration -> models -> inputs -> session -> model ->
// runtime -> front end. Each step is one method, short enough to read on
// one screen.
type launch struct {
	a              *Args
	env            config.Env
	stdin          io.Reader
	stdout, stderr io.Writer

	agentDir, cwd string
	mode          mode
	st            *settings.Settings
	signIns       *auth.Set
	trusted       bool
	res           *runResources // packages and resource settings (pkgres.go)
	reg           *models.Registry
	inputs        []input
	sess          *session.Manager
	src           *modelSource
	scoped        []app.ScopedModel
	model         *llm.Model
	thinking      llm.ThinkingLevel
	modelNotes    strings.Builder // model warnings the TUI shows itself
	seam          *hooks.Set
	cmds          *commands.Registry
	resOpts       app.ResourceOptions
	shell         app.UserShell  // !commands and RPC bash
	cycle         app.ModelCycle // the runtime's models and the scope ctrl+p / cycle_model go through
	loaded        *app.Resources // skills and templates: loaded in buildRuntime, replaced by /reload
	rt            *app.Runtime
	mcp           *mcp.Manager // nil when MCP is off or not configured
	bugs          *bugreport.Feature
	warm          *cachewarm.Warmer
	ext           *ext.Manager  // nil when no extension is configured
	extStarted    bool          // startExtensions ran (early for --list-models)
	shutdownReq   chan struct{} // closed by an extension's ctx.shutdown()
	shutdownOnce  sync.Once
	extWaited     bool // the extensions' load was waited for (and reported)
}

// exit ends the launch early with a status and no error (--export,
// --list-models, --resume without a terminal).
type exit int

func (e exit) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(ctx context.Context, a *Args, env config.Env, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if a.Offline {
		env = env.With(config.EnvOffline, "1")
	}
	l := &launch{a: a, env: env, stdin: stdin, stdout: stdout, stderr: stderr, shutdownReq: make(chan struct{})}
	defer func() {
		if l.warm != nil {
			l.warm.Close()
		}
		if l.mcp != nil {
			l.mcp.Close()
		}
		if l.rt != nil {
			l.rt.Close()
		} else if l.sess != nil {
			l.sess.Close()
		}
		l.ext.Close() // after the runtime's session_shutdown reached it
	}()
	for _, step := range []func(context.Context) error{
		l.configure, l.loadModels, l.listModels, l.readInputs, l.startExtensions, l.openSession, l.chooseModel, l.buildRuntime,
	} {
		if err := step(ctx); err != nil {
			var code exit
			if errors.As(err, &code) {
				return int(code), nil
			}
			return 1, err
		}
	}
	return l.runFrontEnd(ctx)
}

// configure finds the agent dir and cwd, picks the mode, decides project
// trust and loads settings (the project file only once trusted).
func (l *launch) configure(ctx context.Context) error {
	var err error
	if l.agentDir, err = l.env.AgentDir(); err != nil {
		return err
	}
	if l.cwd, err = os.Getwd(); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if l.a.ExportSet {
		code, err := runExport(l.a, l.cwd, l.stdout)
		if err != nil {
			return err
		}
		return exit(code)
	}
	l.mode = selectMode(l.a, l.stdin, l.stdout)
	// project_trust: a handler (user and CLI extensions) may decide.
	l.seam, l.cmds = hooks.New(), commands.New()
	l.trusted = l.decideTrust(ctx)
	st, diags := settings.Load(settings.LoadOptions{AgentDir: l.agentDir, Cwd: l.cwd, ProjectTrusted: l.trusted})
	l.st = st
	for _, d := range diags {
		fmt.Fprintln(l.stderr, settingsDiagLine(d))
	}
	if !l.trusted && settings.NeedsTrust(l.cwd) && l.mode != modeTUI {
		fmt.Fprintln(l.stderr, "Note: project .relay resources were not loaded (project not trusted; use --approve to trust it).")
	}
	l.resolveResources(ctx)
	return nil
}

// loadModels loads the catalog, models.json and credentials.
func (l *launch) loadModels(ctx context.Context) error {
	reg, err := models.Load(l.agentDir, l.env.Get)
	if err != nil {
		fmt.Fprintln(l.stderr, "Warning:", err)
	}
	l.reg = reg
	// Stored subscription tokens are renewed through their sign-ins.
	l.signIns = newSignIns(l.env, reg)
	reg.SetOAuth(l.signIns.OAuth, l.signIns.IDs()...)
	enableLlama(reg, l.st, l.env)
	return nil
}

// listModels is --list-models: the registry once the extensions loaded
// (their providers are listed too), then exit.
func (l *launch) listModels(ctx context.Context) error {
	if !l.a.ListModels {
		return nil
	}
	reg := l.reg
	if err := l.startExtensions(ctx); err != nil {
		return err
	}
	l.waitExtensions(ctx)
	llamaListNotice(ctx, reg, l.env, l.stderr)
	list := reg.Available(ctx)
	if len(list) == 0 {
		fmt.Fprintln(l.stderr, "No provider has credentials yet; listing every known model. Set an API key (e.g. ANTHROPIC_API_KEY) or use /login; "+noKeyHelp+".")
		list = reg.All()
	}
	if err := models.FormatList(l.stdout, list, l.a.ListSearch); err != nil {
		return err
	}
	return exit(0)
}

// readInputs reads the message arguments, @files and piped stdin.
func (l *launch) readInputs(context.Context) error {
	if l.mode == modeRPC && len(l.a.Files) > 0 {
		return usageErr("@file arguments are not supported in RPC mode")
	}
	inputs, err := buildInputs(l.a, l.stdin, l.mode, l.cwd, imageOptions{autoResize: l.st.Images.AutoResize, block: l.st.Images.BlockImages})
	if err != nil {
		return err
	}
	l.inputs = inputs
	if l.mode == modeTUI && len(inputs) > 0 && inputs[0].fromStdin {
		l.mode = modePrint
	}
	return nil
}

// openSession opens, creates, forks or (with --resume) picks the session.
func (l *launch) openSession(context.Context) error {
	// JSON and RPC stdout carries protocol records only: the --resume
	// listing (and any other text) goes to stderr there.
	listOut := l.stdout
	if l.mode == modeRPC || l.mode == modeJSON {
		listOut = l.stderr
	}
	var ask io.Reader
	if l.mode == modeTUI && isTTY(l.stdin) {
		ask = l.stdin
	}
	sess, code, err := openSession(l.a, l.st, l.env, l.agentDir, l.cwd, l.mode, ask, listOut, l.stderr)
	if sess == nil {
		if err == nil && l.a.Resume && len(l.inputs) > 0 {
			fmt.Fprintln(l.stderr, "Note: the prompt was not sent: --resume only lists sessions without a terminal; pass --session ID to continue one.")
		}
		if err != nil {
			return err
		}
		return exit(code)
	}
	l.sess = sess
	tuneGC(l.env, sess)
	if l.mode == modeTUI && sess.IsPersisted() {
		// Warm the session listing cache while the person reads the
		// screen, so the first /resume on a large store is instant.
		root := sess.SessionDir()
		if root == session.DefaultDir(l.agentDir, l.cwd) {
			root = filepath.Dir(root)
		}
		go func() {
			time.Sleep(2 * time.Second)
			_, _ = session.ListAll(root)
		}()
	}
	return nil
}

// chooseModel resolves the model scope, the model and the thinking level.
func (l *launch) chooseModel(ctx context.Context) error {
	l.src = &modelSource{reg: l.reg, attribution: models.InstallTelemetry(l.env, l.st.EnableInstallTelemetry)}
	patterns := l.a.Models
	if len(patterns) == 0 {
		patterns = l.st.EnabledModels
	}
	if len(patterns) > 0 {
		sm, warns := l.reg.Scope(ctx, patterns)
		for _, w := range warns {
			fmt.Fprintln(l.stderr, "Warning:", w)
		}
		for _, s := range sm {
			l.scoped = append(l.scoped, app.ScopedModel{Model: s.Model, Thinking: s.Thinking})
		}
	}
	// The TUI shows model warnings on its own screen, not on stderr
	// behind it.
	notesTo := l.stderr
	if l.mode == modeTUI {
		notesTo = &l.modelNotes
	}
	// Extensions' providers and virtual models can be chosen with
	// --model: their registrations are in before the model is resolved.
	l.waitExtensions(ctx)
	a := l.a
	virtual, vThinking := l.ext.VirtualModel(a.Model)
	if virtual != nil {
		ac := *a
		ac.Model = ""
		a = &ac
	}
	model, thinking, err := chooseModel(ctx, a, l.st, l.reg, l.sess, l.scoped, notesTo)
	if err != nil {
		if a.Model != "" && l.ext != nil {
			return fmt.Errorf("%w (the extensions loaded did not register it either)", err)
		}
		return err
	}
	if virtual != nil {
		model = virtual
		if vThinking != "" {
			thinking = vThinking
		}
	}
	l.model, l.thinking = model, thinking
	if l.a.APIKey != "" && model != nil {
		l.src.cliKey, l.src.keyFor = l.a.APIKey, model.Provider
	}
	if model == nil && l.mode != modeTUI && l.mode != modeRPC {
		return fmt.Errorf("no model available: set an API key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), configure models.json, or pass --model; %s", noKeyHelp)
	}
	return nil
}

// buildRuntime registers the features on the seam and the command
// registry, then builds the runtime complete.
func (l *launch) buildRuntime(ctx context.Context) error {
	a, st := l.a, l.st
	seam, cmds := l.seam, l.cmds
	l.loaded = app.NewResources(nil)
	if core := harnessConfig(st, l.cwd); core != nil {
		// Skills follow /reload, so the list is read when a run asks.
		core.SkillList = func() []harness.SkillInfo { return app.SkillInfos(l.loaded.Get()) }
		if _, err := harness.New(*core).Register(seam, cmds); err != nil {
			return err
		}
	} else if err := cmds.Register(commands.Command{Name: "harness", Description: "Show the harness-core status", Source: commands.Builtin,
		Run: func(context.Context, string) (commands.Output, error) {
			return commands.Output{Text: "Harness core is off (enable the harnessCore.* settings)."}, nil
		}}); err != nil {
		return err
	}
	tools, active, toolWarns := buildTools(a, st, l.cwd)
	for _, w := range toolWarns {
		fmt.Fprintln(l.stderr, "Warning:", w)
	}
	// Extensions register their handlers, tools and commands before the
	// runtime starts (its session_start reaches them).
	l.waitExtensions(ctx)
	for _, err := range l.ext.BindTools(tools) {
		fmt.Fprintln(l.stderr, "Warning:", err)
	}
	if len(active) > 0 {
		for _, n := range l.ext.ActiveByDefault() {
			if !slices.Contains(active, n) { // an override keeps the built-in's place
				active = append(active, n)
			}
		}
	}
	if l.mode == modeTUI {
		for name, src := range l.ext.Overrides() {
			fmt.Fprintf(&l.modelNotes, "Warning: %s overrides the built-in tool %s\n", src, name)
		}
	}
	// The tool selection is shared: the runtime declares it, tool_search,
	// codemode, MCP, Laya and extensions read and change it.
	loadout := tool.NewActive(nil)
	active = addScriptTools(tools, active, st, seam, l.reg, loadout)
	loadout.Set(active)
	cfg := app.Config{
		Env: l.env, Cwd: l.cwd, AgentDir: l.agentDir, Session: l.sess, Models: l.src, Model: l.model, Thinking: l.thinking,
		DefaultThinking: st.DefaultThinkingLevel,
		Tools:           tools, Active: loadout, Hooks: seam, Commands: cmds, HTTPClient: proxyClient(st.HTTPProxy),
		NoContext:  a.NoContext,
		Compaction: compactionSettings(st.Compaction.Enabled, st.CompactionFor("", "")),
		CompactionFor: func(p, id string) compaction.Settings {
			return compactionSettings(st.Compaction.Enabled, st.CompactionFor(p, id))
		},
		BranchReserve:   st.BranchSummary.ReserveTokens,
		Retry:           agent.RetryPolicy{Enabled: st.Retry.Enabled, MaxRetries: st.Retry.MaxRetries, BaseDelay: ms(st.Retry.BaseDelayMs), MaxDelay: ms(st.Retry.MaxAgentDelayMs)},
		ProviderRetries: providerRetries(st.Retry), ProviderMaxDelay: ms(st.Retry.Provider.MaxRetryDelayMs),
		IdleTimeout: ms(st.ProviderTimeoutMs()),
		Transport:   st.Transport, WebsocketConnectTimeout: ms(st.WebsocketConnectTimeoutMs),
		CacheRetention:  cacheRetention(l.env),
		ThinkingBudgets: st.ThinkingBudgets,
		SteeringMode:    string(st.SteeringMode), FollowUpMode: string(st.FollowUpMode),
	}
	cfg.DefaultModel = func() *llm.Model {
		if m := l.reg.Find(st.DefaultProvider, st.DefaultModel); m != nil && l.reg.HasAuth(m.Provider) {
			return m
		}
		return l.reg.DefaultModel(ctx)
	}
	var err error
	cfg.CustomPrompt, cfg.AppendPrompt, err = systemPromptFiles(a, l.agentDir, l.cwd, l.trusted)
	if err != nil {
		return err
	}
	shellEnv := builtin.Env{Cwd: l.cwd, ShellPath: st.ShellPath, ShellCommandPrefix: st.ShellCommandPrefix}
	l.shell = app.UserShell{Hooks: seam, Cwd: l.cwd, Exec: func(ctx context.Context, command string, onChunk func(string)) (app.BashResult, error) {
		r, err := builtin.RunShell(ctx, shellEnv, command, onChunk)
		return app.BashResult{Output: r.Output, ExitCode: r.ExitCode, Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath}, err
	}}
	l.resOpts = app.ResourceOptions{Settings: st, Cwd: l.cwd, AgentDir: l.agentDir, ProjectTrusted: l.trusted,
		SkillPaths: a.Skills, PromptPaths: a.Prompts, NoSkills: a.NoSkills, NoPrompts: a.NoPrompts,
		PackageSkills: packageFiles(l.res.resolved.FromPackages(packages.Skills)), PackagePrompts: packageFiles(l.res.resolved.FromPackages(packages.Prompts))}
	// resources_discover: handlers add skill and prompt template paths.
	extra := seam.RunResources(ctx, hooks.ResourcesDiscover{Cwd: l.cwd, Reason: "startup"})
	l.resOpts.SkillPaths = append(l.resOpts.SkillPaths, extra.SkillPaths...)
	l.resOpts.PromptPaths = append(l.resOpts.PromptPaths, extra.PromptPaths...)
	l.loaded.Set(app.LoadResources(l.resOpts))
	cfg.Resources = l.loaded
	// laya/auto: a virtual model in the registry the runtime sees, routed
	// through the seam once the runtime exists.
	drv := layaauto.New(layaauto.Options{Settings: st, AgentDir: l.agentDir, Cwd: l.cwd, Env: llamaEnv(l.reg, l.env), PolicyFlag: a.LayaPolicy,
		Interactive: l.mode == modeTUI, Version: Version, Tools: tools, Active: loadout, Resources: l.loaded}, cfg.Models)
	cfg.Models, cfg.Model = drv.Models(), drv.Model(cfg.Model)
	cfg.Models = l.ext.Models(cfg.Models) // extensions' virtual models
	l.cycle = app.ModelCycle{Scoped: l.scoped, Models: cfg.Models}
	rt, err := app.New(cfg)
	if err != nil {
		return err
	}
	l.rt, l.sess = rt, nil
	l.ext.Attach(rt, loadout)
	if err := drv.Attach(rt, seam, cmds); err != nil {
		return err
	}
	if err := sessionshare.Register(rt, cmds, sessionshare.Options{Cwd: l.cwd, AgentDir: l.agentDir, Env: l.env}); err != nil {
		return err
	}
	// The credentials go through the registry itself (not the laya/auto
	// wrapper), so its cached auth.json sees them at once.
	if err := apikeys.Register(rt, cmds, apikeys.Options{AgentDir: l.agentDir, Env: l.env, Models: l.src,
		SignIn: l.signIns, NoBrowser: noBrowser(l.env), Notify: seam.Notify, OpenURL: l.browser()}); err != nil {
		return err
	}
	bo := bugreport.Options{Cwd: l.cwd, AgentDir: l.agentDir, Env: l.env, Version: Version, Active: loadout}
	if l.reg != nil {
		bo.AuthSource = l.reg.AuthSource
	}
	if l.bugs, err = bugreport.Register(rt, seam, cmds, bo); err != nil {
		return err
	}
	mode := st.CacheWarming
	l.warm = cachewarm.Register(rt, seam, cachewarm.Options{Mode: func() settings.CacheWarming { return mode },
		ShowMissNotices: st.ShowCacheMissNotices, Models: cfg.Models})
	if err := registerLlama(l.reg, st, l.env, l.agentDir, seam, cmds); err != nil {
		return err
	}
	l.mcp = startMCP(l.env, st, l.agentDir, l.cwd, l.trusted, seam, cmds, tools, loadout, rt, len(active) > 0, l.stderr)
	for _, d := range l.loaded.Get().Diagnostics {
		fmt.Fprintln(l.stderr, "Warning:", d)
	}
	if l.model != nil && rt.Session().LeafID() == "" {
		_, _ = rt.Session().AppendModelChange(l.model.Provider, l.model.ID)
		_, _ = rt.Session().AppendThinkingLevelChange(string(rt.State().ThinkingLevel))
	}
	if a.Name != nil {
		return rt.SetSessionName(*a.Name)
	}
	return nil
}

// proxyClient is the HTTP client for the httpProxy setting (nil = the
// default client, which follows HTTP(S)_PROXY).
func proxyClient(proxy string) *http.Client {
	if proxy == "" {
		return nil
	}
	u, err := url.Parse(proxy)
	if err != nil {
		return nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyURL(u)
	return &http.Client{Transport: t}
}

// runFrontEnd hands the runtime to the mode's front end; SIGTERM, SIGHUP
// and SIGINT end non-interactive runs with 143, 129 and 130.
func (l *launch) runFrontEnd(ctx context.Context) (int, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	exitCode := make(chan int, 1)
	if l.mode != modeTUI {
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
	plain := make([]app.Input, 0, len(l.inputs))
	for _, in := range l.inputs {
		plain = append(plain, in.Input)
	}
	rt, st := l.rt, l.st
	if l.mode == modeRPC || l.mode == modeTUI {
		startCatalogRefresh(ctx, l.env, l.reg, catalogBaseURL, proxyClient(st.HTTPProxy), nil)
	}
	var rc int
	switch l.mode {
	case modeRPC:
		in := l.stdin
		if l.ext != nil {
			// ctx.shutdown() ends RPC as a closed stdin does, once idle.
			pr, pw := io.Pipe()
			go func() {
				_, err := io.Copy(pw, l.stdin)
				pw.CloseWithError(err)
			}()
			in = pr
			go l.quitOnShutdown(ctx, rt, func() { pw.Close() }, stop)
		}
		rc = rpcmode.Serve(ctx, rt, in, l.stdout, rpcmode.Options{Hooks: l.seam, Commands: l.cmds, Models: l.cycle, Shell: l.shell, Export: exportHTML})
	case modeJSON:
		rc = jsonmode.Run(ctx, rt, plain, l.stdout, l.stderr)
	case modePrint:
		if l.model == nil {
			return 1, fmt.Errorf("no model available; %s", noKeyHelp)
		}
		rc = printmode.Run(ctx, rt, plain, l.stdout, l.stderr)
	default:
		if l.ext != nil {
			go l.quitOnShutdown(ctx, rt, nil, stop)
		}
		// Flags beat settings for this run only.
		if l.a.TUIMode != "" {
			st.TUIMode = l.a.TUIMode
		}
		if l.a.UseTheme != "" {
			st.Theme = l.a.UseTheme
		}
		if l.a.Verbose {
			st.QuietStartup = settings.QuietStartup{}
		}
		if err := tui.RunApp(ctx, rt, tui.AppOptions{Settings: st, AgentDir: l.agentDir, Env: l.env, Inputs: plain, Resume: l.a.Resume,
			Stdout: l.stdout, Registry: l.reg, Version: Version, Resources: &l.resOpts, Loaded: l.loaded, Warnings: warningLines(l.modelNotes.String()), Bugs: l.bugs,
			ThemePaths: l.res.Themes, Hooks: l.seam, Commands: l.cmds, Models: l.cycle, Shell: l.shell}); err != nil {
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
