package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
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

func cacheRetention(env config.Env) llm.CacheRetention {
	if env.CacheLong {
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
// A prompt file that is not a regular file or is over config.MaxPromptText
// is an error naming it.
func systemPromptFiles(a *Args, agentDir, cwd string, trusted bool) (custom string, appendix []string, err error) {
	read := func(p string) string {
		if err != nil {
			return ""
		}
		b, rerr := fsx.ReadFile(p, config.MaxPromptText)
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
		return string(b)
	}
	arg := func(v string) string {
		s, aerr := app.ReadPromptArg(v, cwd)
		if err == nil && aerr != nil {
			err = aerr
		}
		return s
	}
	switch {
	case a.SystemPrompt != "":
		custom = arg(a.SystemPrompt)
	case trusted && read(filepath.Join(cwd, ".relay", "SYSTEM.md")) != "":
		custom = read(filepath.Join(cwd, ".relay", "SYSTEM.md"))
	default:
		custom = read(filepath.Join(agentDir, "SYSTEM.md"))
	}
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
		appendix = append(appendix, arg(v))
	}
	if err != nil {
		return "", nil, fmt.Errorf("system prompt: %w", err)
	}
	return custom, appendix, nil
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
