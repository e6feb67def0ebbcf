package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
	"github.com/relay-agent/relay/internal/tui/markdown"
	"github.com/relay-agent/relay/internal/tui/theme"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// Messages the model sends itself.
type (
	eventsMsg     struct{ evs []agent.Event }
	promptDoneMsg struct{ err error }
	bashDoneMsg   struct {
		res BashResult
		err error
	}
	// resultMsg reports the outcome of a runtime call made in a Cmd.
	resultMsg struct {
		notice   string
		err      error
		reload   bool   // redraw the transcript from ContextMessages
		editor   string // text to put in the editor
		hasText  bool
		dequeued bool     // the queue was emptied into the editor
		restored []string // queued messages to put ahead of the editor's text
		info     *Info    // fresh session info
		msgs     []llm.Message
	}
	tickMsg   struct{}
	statusMsg string
)

// eventQueue buffers agent events between the agent goroutine and the UI:
// the subscriber never blocks on the UI, and Update drains a whole batch
// per wake-up, so a fast token stream costs one redraw per frame.
type eventQueue struct {
	mu     sync.Mutex
	evs    []agent.Event
	notify chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{notify: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev agent.Event) {
	q.mu.Lock()
	q.evs = append(q.evs, ev)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *eventQueue) wait() tea.Msg {
	<-q.notify
	q.mu.Lock()
	evs := q.evs
	q.evs = nil
	q.mu.Unlock()
	return eventsMsg{evs}
}

// Model is the bubbletea model of the interactive UI.
type Model struct {
	rt   Runtime
	opts Options
	ctx  context.Context
	km   *keymap.Keymap
	cmds *commands.Registry // shared with the runtime
	th   *theme.Theme
	md   *markdown.Renderer
	tr   *transcript.Transcript
	ed   *editor.Editor
	q    *eventQueue
	xq   *extQueue // shown entries and renderer wake-ups (extrender.go)

	width, height int
	fullscreen    bool

	busy        bool // a prompt is running
	bashRunning bool
	bashOut     *strings.Builder
	bashMu      *sync.Mutex
	bashCmd     string
	bashExclude bool // the running ! command is a !! one
	queued      []string
	// warnings.anthropicExtraUsage: said once; authChecked is the
	// provider whose credential was last looked at.
	extraUsageWarned bool
	authChecked      string
	flushingQueue    bool               // a stuck queue is being taken to send it
	prompting        bool               // a Prompt call has not returned yet
	images           []llm.ImageContent // pasted images for the next prompt
	status           string
	statusErr        bool
	spin             int

	info        Info
	infoDirty   bool
	infoBusy    bool
	modelName   string
	thinking    llm.ThinkingLevel
	hasThinking bool

	lastEsc   time.Time
	lastClear time.Time

	overlay overlay

	searching bool
	search    string

	rebuildPending bool

	lastWheel time.Time
	wheelStep int

	sel      selection
	rows     []string // transcript rows of the last fullscreen frame
	themeMod time.Time

	dialogQueue []dialog // hooks.UI questions behind the open one
	ext         extState // what extensions put on screen (extui.go)

	escHeld   bool // a lone Escape waits to become an Alt prefix
	escSeq    int
	kittyKeys bool // the terminal disambiguates Escape (kitty protocol)
	liveHigh  int  // regular mode: most rows the live area used (clearOnShrink)

	// Regular mode: committed lines waiting to be printed (scrollback.go),
	// the last frame's height and the tallest recent one.
	printQueue           []string
	printing             bool
	frameRows, frameTall int
	frameTallAt          time.Time

	noticeCh   chan string
	noticeSeq  int
	noticeText string

	// compactEnds counts CompactionEnd events delivered, so /compact can
	// tell whether its error was already reported by the event.
	compactEnds *atomic.Int64

	pending  tea.Cmd // a command queued by a helper outside Update's return
	quitting bool
}

// noModelHelp tells a new user, who has no API key yet, how to get going.
const noModelHelp = "No model available. Add an API key with /login, or set one in your environment " +
	"(e.g. export ANTHROPIC_API_KEY=... or OPENAI_API_KEY=...) and restart relay; then pick a model with /model. " +
	"A local OpenAI-compatible server (llama.cpp, Ollama, vLLM) needs no key: see relay help models and docs/providers.md."

// regularHistory is how many messages of a resumed session regular mode
// prints.
const regularHistory = 300

// New builds the model; Run is the usual entry point.
func New(ctx context.Context, rt Runtime, o Options) *Model {
	km := o.Keymap
	if km == nil {
		km = keymap.New(keymap.DetectPlatform(o.Env.Terminal.WSL))
	}
	// Fullscreen redraws its screen: only kitty's unicode placeholders
	// survive that; iTerm2 images show as markers there.
	o.Images.Placeholders = o.Fullscreen && o.Images.Protocol == transcript.ProtocolKitty
	cmds := o.Registry
	if cmds == nil {
		cmds = commands.New()
	}
	registerUICommands(cmds)
	m := &Model{rt: rt, opts: o, ctx: ctx, km: km, cmds: cmds, q: newEventQueue(), xq: newExtQueue(), fullscreen: o.Fullscreen,
		bashMu: &sync.Mutex{}, bashOut: &strings.Builder{},
		noticeCh: make(chan string, 64), compactEnds: &atomic.Int64{}}
	m.setTheme(themeSelect(o))
	m.initRenderers()
	m.ed = editor.New(km)
	m.ed.SetMaxVisible(o.AutocompleteMaxVisible)
	m.ed.SetCompleter(m.completer())
	for _, h := range o.History {
		m.ed.AddHistory(h)
	}
	m.ed.Placeholder = ""
	m.refreshInfo()
	// The header comes first, as on a fresh start; a resumed session's
	// history follows it.
	if !o.QuietStartup {
		m.tr.AddNotice(m.header())
		if !o.HeaderOnly {
			for _, n := range o.StartupNotes {
				m.tr.AddNotice(n)
			}
		}
	}
	msgs := rt.ContextMessages()
	if o.Changelog != "" {
		m.addChangelog(o.Changelog, o.CollapseChangelog)
	}
	if !o.Fullscreen && len(msgs) > regularHistory {
		// Regular mode prints history into the terminal's scrollback once;
		// a long session shows only its end there.
		m.tr.AddNotice(fmt.Sprintf("… %d earlier messages not shown (fullscreen mode shows the whole session)", len(msgs)-regularHistory))
		msgs = msgs[len(msgs)-regularHistory:]
	}
	m.tr.AddMessages(msgs)
	if rt.Model() == nil {
		m.tr.AddNotice(noModelHelp)
	}
	for _, w := range append(append([]string{}, o.StartupWarnings...), o.ThemeErrors...) {
		m.tr.AddError(w)
	}
	for _, n := range o.StartupNotices {
		m.tr.AddNotice(n)
	}
	return m
}

func (m *Model) setTheme(th *theme.Theme) {
	m.th = th
	m.md = markdown.NewRenderer(markdown.Options{Theme: th, CodeBlockIndent: m.codeIndent(), Hyperlinks: m.opts.Hyperlinks, Mermaid: m.opts.Mermaid})
	if m.tr == nil {
		m.tr = transcript.New(m.md, transcript.Options{HideThinking: m.opts.HideThinkingBlock, OutputPad: m.opts.OutputPad})
		m.tr.SetImages(m.opts.Images)
	} else {
		m.tr.SetRenderer(m.md)
	}
	if m.ed != nil {
		m.ed.Styles = m.editorStyles()
	}
	m.publishTheme()
}

func (m *Model) codeIndent() string {
	if m.opts.CodeBlockIndent == "" {
		return "  "
	}
	return m.opts.CodeBlockIndent
}

func (m *Model) header() string {
	v := m.opts.Version
	if v == "" {
		v = "dev"
	}
	return fmt.Sprintf("relay %s · %s to interrupt · %s to clear · %s twice to exit · /hotkeys for keys",
		v, m.km.Label(keymap.AppInterrupt), m.km.Label(keymap.AppClear), m.km.Label(keymap.AppClear))
}

// refreshInfo updates the model name and thinking level now and asks for
// the session totals (Info may scan the whole session) off the update
// loop; see infoCmd.
func (m *Model) refreshInfo() {
	if md := m.rt.Model(); md != nil {
		m.modelName = md.ID
		m.hasThinking = md.Reasoning
		m.warnExtraUsage(md.Provider)
	} else {
		m.modelName = "no model"
		m.hasThinking = false
	}
	m.thinking = m.rt.ThinkingLevel()
	m.infoDirty = true
}

type infoMsg struct{ info Info }

// applyMsg runs on the update loop with data a Cmd fetched.
type applyMsg func(m *Model)

// later runs fetch off the update loop (runtime calls that may read files
// or scan the session) and applies its result on the loop.
func (m *Model) later(fetch func() func(*Model)) {
	cmd := func() tea.Msg { return applyMsg(fetch()) }
	m.pending = tea.Batch(m.pending, cmd)
}

// infoCmd fetches Info when it is stale and no fetch is running.
func (m *Model) infoCmd() tea.Cmd {
	if !m.infoDirty || m.infoBusy {
		return nil
	}
	m.infoDirty, m.infoBusy = false, true
	rt := m.rt
	return func() tea.Msg { return infoMsg{rt.Info()} }
}

func themeSelect(o Options) *theme.Theme {
	return theme.Select(o.ThemeSetting, o.Terminal, o.CustomThemes)
}

// Deliver hands an agent event to the UI; safe from any goroutine and
// never blocks. Run subscribes it to the runtime.
func (m *Model) Deliver(ev agent.Event) {
	if ev.Type == agent.CompactionEnd {
		m.compactEnds.Add(1)
	}
	m.q.push(ev)
}

// Init subscribes to events and starts the frame tick.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.q.wait, m.waitNotice, m.waitExt, m.queryColors(), m.infoCmd(), m.updateCheck()}
	if m.opts.Approver != nil {
		cmds = append(cmds, m.opts.Approver.wait(m.ctx))
	}
	if !m.opts.DisableTick {
		if st, err := os.Stat(m.th.Source); err == nil {
			m.themeMod = st.ModTime()
		}
		cmds = append(cmds, m.watchTheme())
	}
	if !m.opts.DisableTick {
		cmds = append(cmds, tick())
	}
	if m.opts.OpenResume {
		cmds = append(cmds, m.openResume())
	}
	if p := strings.TrimSpace(m.opts.InitialPrompt); p != "" || len(m.opts.InitialImages) > 0 {
		imgs := m.opts.InitialImages
		cmds = append(cmds, func() tea.Msg { return submitMsg{p, imgs} })
	}
	return tea.Batch(cmds...)
}

type submitMsg struct {
	text   string
	images []llm.ImageContent // @file images of the initial prompt
}

func tick() tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update handles one message. It never blocks: runtime calls that may
// wait run in Cmds and report back with messages.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.liveHigh = 0
	case tea.BackgroundColorMsg:
		m.opts.Terminal.Background = msg.Color
		if m.systemTheme() {
			cmds = append(cmds, m.scheduleThemeRebuild())
		}
	case tea.ForegroundColorMsg:
		m.opts.Terminal.Foreground = msg.Color
		cmds = append(cmds, m.scheduleThemeRebuild())
	case uv.UnknownOscEvent:
		if m.colorReply(msg) {
			cmds = append(cmds, m.scheduleThemeRebuild())
		}
	case themeRebuildMsg:
		m.rebuildPending = false
		m.setTheme(themeSelect(m.opts))
	case eventsMsg:
		for _, ev := range msg.evs {
			m.applyEvent(ev)
		}
		cmds = append(cmds, m.q.wait)
	case applyMsg:
		msg(m)
	case noticeMsg:
		cmds = append(cmds, m.showNotice(msg.text), m.waitNotice)
	case noticeExpireMsg:
		m.expireNotice(msg.seq)
	case uiOpsMsg:
		for _, op := range msg {
			op(m)
		}
		cmds = append(cmds, m.opts.Approver.wait(m.ctx))
	case compRenderedMsg:
		m.compRendered(msg)
	case extWakeMsg:
		m.extWake(msg)
		cmds = append(cmds, m.waitExt)
	case extRenderedMsg:
		m.tr.SetRendered(msg.want, msg.lines, msg.ok)
	case infoMsg:
		m.info, m.infoBusy = msg.info, false
	case printNextMsg:
		cmds = append(cmds, m.printNext())
	case tickMsg:
		m.spin++
		cmds = append(cmds, tick())
	case queueFlushMsg:
		m.flushingQueue = false
		cmds = append(cmds, m.sendFlushed(msg.texts))
	case promptDoneMsg:
		m.busy, m.prompting = false, false
		m.sendStuckQueue()
		var pe *agent.PersistError
		// A failed session write was shown by its event already.
		if msg.err != nil && m.ctx.Err() == nil && !errors.As(msg.err, &pe) {
			m.tr.AddError(msg.err.Error())
		}
		m.refreshInfo()
	case bashDoneMsg:
		m.finishBash(msg)
	case updateNoticeMsg:
		if msg.text != "" {
			m.tr.AddNotice(msg.text)
		}
	case resultMsg:
		m.applyResult(msg)
	case statusMsg:
		m.setStatus(string(msg), false)
	case submitMsg:
		if len(msg.images) > 0 {
			cmds = append(cmds, m.prompt(msg.text, msg.images))
		} else {
			cmds = append(cmds, m.submit(msg.text))
		}
	case sessionsMsg:
		if p, ok := m.overlay.(*resumePicker); ok {
			p.setItems(msg.items, msg.err)
		} else if msg.err != nil {
			m.tr.AddError(msg.err.Error())
		}
	case treeDoneMsg:
		m.busy = false
		m.setStatus("", false)
		if msg.err != nil {
			m.tr.AddError(msg.err.Error())
		} else {
			m.applyResult(resultMsg{reload: true, msgs: msg.msgs, editor: msg.text, hasText: msg.text != ""})
		}
	case reloadMsg:
		m.applyReload(msg)
	case startEditorMsg:
		cmds = append(cmds, execEditor(msg))
	case clipboardImageMsg:
		if msg.err != nil {
			m.setStatus(msg.err.Error(), true)
		} else if msg.img != nil {
			m.attachImage(msg.img)
		}
	case tea.ClipboardMsg:
		if msg.Content != "" {
			m.ed.Paste(msg.Content)
		}
	case editor.CompletionsMsg:
		m.ed.HandleCompletions(msg)
	case tea.PasteMsg:
		if m.overlay != nil {
			cmds = append(cmds, m.overlay.paste(m, msg.Content))
		} else if !m.extPaste(msg.Content) {
			m.ed.Paste(msg.Content)
		}
	case tea.MouseClickMsg, tea.MouseMotionMsg, tea.MouseReleaseMsg:
		cmds = append(cmds, m.mouse(msg))
	case themeCheckMsg:
		m.themeMod = msg.mod
		if msg.err != nil {
			m.tr.AddError(msg.err.Error())
		} else if msg.th != nil {
			if m.opts.CustomThemes == nil {
				m.opts.CustomThemes = map[string]*theme.Theme{}
			}
			m.opts.CustomThemes[msg.th.Name] = msg.th
			m.setTheme(themeSelect(m.opts))
		}
		cmds = append(cmds, m.watchTheme())
	case tea.MouseWheelMsg:
		m.sel = selection{}
		if m.fullscreen {
			n := m.wheelLines()
			if msg.Mod&tea.ModAlt != 0 {
				n *= 5
			}
			if msg.Button == tea.MouseWheelUp {
				m.tr.ScrollBy(-n)
			} else if msg.Button == tea.MouseWheelDown {
				m.tr.ScrollBy(n)
			}
		}
	case tea.KeyPressMsg:
		cmds = append(cmds, m.keyPress(msg))
	case escFlushMsg:
		cmds = append(cmds, m.flushEsc(msg.seq))
	case tea.KeyboardEnhancementsMsg:
		m.kittyKeys = msg.SupportsKeyDisambiguation()
	}
	if m.overlay != nil || len(m.dialogQueue) > 0 {
		m.dropStaleDialogs()
	}
	m.syncComps()
	m.mirror()
	if !m.fullscreen && m.width > 0 {
		if lines := m.tr.TakeCommitted(m.contentWidth()); len(lines) > 0 {
			cmds = append(cmds, m.queuePrint(lines))
		}
	}
	m.askRenderers()
	if c := m.infoCmd(); c != nil {
		cmds = append(cmds, c)
	}
	if seq := m.tr.TakeImageCommands(); seq != "" {
		cmds = append(cmds, tea.Raw(seq))
	}
	if m.pending != nil {
		cmds = append(cmds, m.pending)
		m.pending = nil
	}
	if m.quitting {
		cmds = append(cmds, tea.Quit)
	}
	return m, tea.Batch(cmds...)
}

// wheelLines is the scroll per wheel event. "auto" (0) is one line in a
// local macOS terminal, which accelerates by itself; elsewhere fast spins
// speed up to at most 6 lines per event.
func (m *Model) wheelLines() int {
	if m.opts.FullscreenWheelLines > 0 {
		return min(100, m.opts.FullscreenWheelLines)
	}
	if runtime.GOOS == "darwin" && !m.opts.Env.Terminal.SSH {
		return 1
	}
	now := time.Now()
	if now.Sub(m.lastWheel) < 40*time.Millisecond {
		m.wheelStep = min(6, m.wheelStep+1)
	} else {
		m.wheelStep = 1
	}
	m.lastWheel = now
	return m.wheelStep
}

func (m *Model) contentWidth() int { return max(20, m.width) }

func (m *Model) setStatus(s string, isErr bool) { m.status, m.statusErr = s, isErr }

// abortingStatus shows between escape and the run actually stopping.
const abortingStatus = "Aborting…"

// clearAborting drops the "Aborting…" status once nothing runs any more.
func (m *Model) clearAborting() {
	if m.status == abortingStatus && !m.busy && !m.bashRunning {
		m.setStatus("", false)
	}
}

func (m *Model) applyEvent(ev agent.Event) {
	m.tr.Apply(ev)
	switch ev.Type {
	case agent.AgentStart:
		m.busy = true
	case agent.AgentSettled:
		m.busy = false
		m.clearAborting()
		m.refreshInfo()
	case agent.QueueUpdate:
		// Say which kind each queued message is: a steer lands after the
		// current tool calls, a follow-up only when the agent is done.
		m.queued = m.queued[:0:0]
		for _, q := range ev.Steering {
			m.queued = append(m.queued, "steering: "+q)
		}
		for _, q := range ev.FollowUp {
			m.queued = append(m.queued, "follow-up: "+q)
		}
	case agent.MessageEnd, agent.SessionInfoChanged, agent.ThinkingLevelChanged, agent.CompactionEnd:
		m.refreshInfo()
	}
	m.sendStuckQueue()
}

func (m *Model) applyResult(r resultMsg) {
	if r.reload && r.err == nil {
		m.tr.Clear()
		if !m.opts.QuietStartup {
			// The header heads every session's transcript, as at start.
			m.tr.AddNotice(m.header())
		}
		m.tr.AddMessages(r.msgs)
	}
	if r.err != nil {
		m.tr.AddError(r.err.Error())
	} else if r.notice != "" {
		m.tr.AddNotice(r.notice)
	}
	if r.hasText {
		m.ed.SetValue(r.editor)
	}
	if len(r.restored) > 0 {
		text := strings.Join(r.restored, "\n\n")
		if draft := m.ed.Value(); strings.TrimSpace(draft) != "" {
			text += "\n\n" + draft
		}
		m.ed.SetValue(text)
	}
	if r.dequeued {
		m.queued = nil
	}
	if r.info != nil {
		m.info = *r.info
	}
	m.refreshInfo()
}

// submit handles an entered prompt: a slash command, a shell escape, a
// steering message while the agent works, or a new prompt.
func (m *Model) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil
	}
	if strings.HasPrefix(trimmed, "/") {
		name, args, _ := strings.Cut(trimmed[1:], " ")
		if cmd, ok := m.command(name, strings.TrimSpace(args)); ok {
			return cmd
		}
	}
	if cmd, exclude, ok := editor.Bang(trimmed); ok {
		return m.runBash(cmd, exclude)
	}
	if !strings.HasPrefix(trimmed, "/") && m.rt.Model() == nil {
		// Nothing could answer: keep what the user wrote and say how to
		// get a model instead of dropping the text with an error.
		m.ed.SetValue(text)
		m.tr.AddError(noModelHelp)
		return nil
	}
	images := m.takeImages(text)
	if m.busy {
		rt := m.rt
		return func() tea.Msg { rt.Steer(text, images); return nil }
	}
	return m.prompt(text, images)
}

func (m *Model) prompt(text string, images []llm.ImageContent) tea.Cmd {
	m.busy, m.prompting = true, true
	m.tr.Bottom()
	rt, ctx := m.rt, m.ctx
	return func() tea.Msg { return promptDoneMsg{rt.Prompt(ctx, text, images)} }
}

func (m *Model) runBash(command string, exclude bool) tea.Cmd {
	if m.bashRunning {
		m.setStatus("a shell command is already running", true)
		return nil
	}
	m.bashRunning, m.bashCmd, m.bashExclude = true, command, exclude
	m.bashMu.Lock()
	m.bashOut.Reset()
	m.bashMu.Unlock()
	rt, ctx, mu, out := m.rt, m.ctx, m.bashMu, m.bashOut
	return func() tea.Msg {
		res, err := rt.Bash(ctx, command, exclude, func(s string) {
			mu.Lock()
			out.WriteString(s)
			mu.Unlock()
		})
		return bashDoneMsg{res, err}
	}
}

func (m *Model) finishBash(msg bashDoneMsg) {
	m.bashRunning = false
	m.clearAborting()
	if msg.err != nil {
		m.tr.AddError("!" + m.bashCmd + ": " + msg.err.Error())
		return
	}
	m.tr.AddMessage(&llm.BashExecutionMessage{Command: m.bashCmd, Output: msg.res.Output, ExitCode: msg.res.ExitCode,
		Cancelled: msg.res.Cancelled, Truncated: msg.res.Truncated, ExcludeFromContext: m.bashExclude})
	m.refreshInfo()
}

// call runs f in a Cmd and reports its outcome; when the transcript must
// be redrawn, the new branch is fetched there too.
func (m *Model) call(f func() resultMsg) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		r := f()
		if r.reload && r.err == nil {
			r.msgs = rt.ContextMessages()
		}
		return r
	}
}
