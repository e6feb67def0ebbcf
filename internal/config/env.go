package config

import (
	"os"
	"strings"
)

// Environment variables read by relay itself (upstream-spec-core.md §7.5).
const (
	EnvPackageDir       = "RELAY_PACKAGE_DIR"
	EnvOffline          = "RELAY_OFFLINE"
	EnvSkipVersionCheck = "RELAY_SKIP_VERSION_CHECK"
	EnvTelemetry        = "RELAY_TELEMETRY"
	EnvCacheRetention   = "RELAY_CACHE_RETENTION"
	EnvShareViewerURL   = "RELAY_SHARE_VIEWER_URL"
	EnvHardwareCursor   = "RELAY_HARDWARE_CURSOR"
	EnvHyperlinks       = "RELAY_HYPERLINKS"
	EnvImageProtocol    = "RELAY_IMAGE_PROTOCOL"
	EnvTrueColor        = "RELAY_TRUE_COLOR"
	EnvTUIEscTimeout    = "RELAY_TUI_ESC_TIMEOUT"
	EnvStartupBenchmark = "RELAY_STARTUP_BENCHMARK"
	EnvLayaBaseURL      = "LAYA_BASE_URL"
	EnvLlamaBaseURL     = "LLAMA_BASE_URL"
	EnvLlamaAPIKey      = "LLAMA_API_KEY"

	// Markers relay sets for the processes it starts.
	EnvAIAgent      = "AI_AGENT"
	EnvCodingAgent  = "RELAY_CODING_AGENT"
	AIAgentValue    = "relay"
	CodingAgentTrue = "true"

	// Per-command variables injected into the bash/powershell tools.
	EnvSessionID      = "RELAY_SESSION_ID"
	EnvSessionFile    = "RELAY_SESSION_FILE"
	EnvProvider       = "RELAY_PROVIDER"
	EnvModel          = "RELAY_MODEL"
	EnvReasoningLevel = "RELAY_REASONING_LEVEL"
)

// ParseBool reads the documented boolean spellings: "1", "true", "yes" are
// true and "0", "false", "no" are false (case-insensitive, surrounding
// space ignored). ok is false for anything else, including "".
func ParseBool(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true, true
	case "0", "false", "no":
		return false, true
	}
	return false, false
}

// Truthy reports whether s is one of "1", "true", "yes".
func Truthy(s string) bool {
	v, ok := ParseBool(s)
	return ok && v
}

// Env is the process environment, read once at start (cli.Main) and passed
// down: every RELAY_* variable, the provider and terminal variables relay
// consults. Nothing below the CLI calls os.Getenv; tests build an Env from a
// map.
type Env struct {
	vars map[string]string

	// Offline (--offline or RELAY_OFFLINE) stops every automatic network
	// activity: catalog refresh, version check, Laya image pull and
	// autostart, package update checks. Requests the person makes (to the
	// model, /share, /laya start) still go out.
	Offline bool
	// SkipVersionCheck is RELAY_SKIP_VERSION_CHECK, or Offline.
	SkipVersionCheck bool
	// Telemetry is RELAY_TELEMETRY; TelemetrySet is false when it is absent
	// or not a boolean, and enableInstallTelemetry decides.
	Telemetry, TelemetrySet bool
	// CacheLong is RELAY_CACHE_RETENTION=long.
	CacheLong bool
	// PackageDir is RELAY_PACKAGE_DIR with ~ expanded.
	PackageDir string
	// ShareViewerURL is RELAY_SHARE_VIEWER_URL.
	ShareViewerURL string
	// LayaBaseURL and LayaAPIKey are LAYA_BASE_URL and LAYA_API_KEY.
	LayaBaseURL, LayaAPIKey string
	// LlamaBaseURL and LlamaAPIKey are LLAMA_BASE_URL and LLAMA_API_KEY:
	// the llama.cpp server of the built-in llama.cpp provider.
	LlamaBaseURL, LlamaAPIKey string
	// SessionDir is RELAY_CODING_AGENT_SESSION_DIR.
	SessionDir string

	Terminal Terminal
}

// Terminal is what the environment says about the terminal and desktop.
type Terminal struct {
	HardwareCursor bool   // RELAY_HARDWARE_CURSOR=1
	Hyperlinks     string // RELAY_HYPERLINKS (lower-cased)
	ImageProtocol  string // RELAY_IMAGE_PROTOCOL
	TrueColor      string // RELAY_TRUE_COLOR
	EscTimeout     string // RELAY_TUI_ESC_TIMEOUT (validated by the TUI)
	ColorFGBG      string // COLORFGBG
	ColorTerm      string // COLORTERM
	Term           string // TERM
	Editor         string // VISUAL, else EDITOR
	Browser        string // BROWSER (the sign-in pages' browser)
	Shell          string // SHELL
	Tmux           bool   // TMUX set
	SSH            bool   // SSH_CONNECTION, SSH_CLIENT or SSH_TTY set
	WSL            bool   // WSL_DISTRO_NAME or WSL_INTEROP set
	Wayland        bool   // WAYLAND_DISPLAY set
	X11            bool   // DISPLAY set
	CI             bool   // CI set
}

// ReadEnv snapshots the process environment.
func ReadEnv() Env {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return EnvFromMap(m)
}

// EnvFromMap builds an Env from explicit variables (tests, embedding).
func EnvFromMap(m map[string]string) Env {
	if m == nil {
		m = map[string]string{}
	}
	e := Env{vars: m}
	get := func(k string) string { return strings.TrimSpace(m[k]) }
	set := func(k string) bool { return m[k] != "" }
	e.Offline = Truthy(get(EnvOffline))
	e.SkipVersionCheck = Truthy(get(EnvSkipVersionCheck)) || e.Offline
	e.Telemetry, e.TelemetrySet = ParseBool(get(EnvTelemetry))
	e.CacheLong = strings.EqualFold(get(EnvCacheRetention), "long")
	if v := get(EnvPackageDir); v != "" {
		if x, err := ExpandHome(v); err == nil {
			v = x
		}
		e.PackageDir = v
	}
	e.ShareViewerURL = get(EnvShareViewerURL)
	e.LayaBaseURL, e.LayaAPIKey = get(EnvLayaBaseURL), get("LAYA_API_KEY")
	e.LlamaBaseURL, e.LlamaAPIKey = get(EnvLlamaBaseURL), get(EnvLlamaAPIKey)
	e.SessionDir = m[EnvSessionDir]
	t := &e.Terminal
	t.HardwareCursor = get(EnvHardwareCursor) == "1"
	t.Hyperlinks = strings.ToLower(get(EnvHyperlinks))
	t.ImageProtocol = get(EnvImageProtocol)
	t.TrueColor = get(EnvTrueColor)
	t.EscTimeout = get(EnvTUIEscTimeout)
	t.ColorFGBG, t.ColorTerm, t.Term = m["COLORFGBG"], m["COLORTERM"], m["TERM"]
	t.Editor = m["VISUAL"]
	if t.Editor == "" {
		t.Editor = m["EDITOR"]
	}
	t.Shell = m["SHELL"]
	t.Browser = m["BROWSER"]
	t.Tmux = set("TMUX")
	t.SSH = set("SSH_CONNECTION") || set("SSH_CLIENT") || set("SSH_TTY")
	t.WSL = set("WSL_DISTRO_NAME") || set("WSL_INTEROP")
	t.Wayland, t.X11, t.CI = set("WAYLAND_DISPLAY"), set("DISPLAY"), set("CI")
	return e
}

// Names lists the variable names that are set.
func (e Env) Names() []string {
	out := make([]string, 0, len(e.vars))
	for k := range e.vars {
		out = append(out, k)
	}
	return out
}

// Get returns one variable by name ("" when unset): provider API keys and
// the other variables the models catalog names per provider.
func (e Env) Get(name string) string { return e.vars[name] }

// Lookup is os.LookupEnv on the snapshot.
func (e Env) Lookup(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// With returns a copy with one variable set (the CLI's --offline).
func (e Env) With(name, value string) Env {
	m := make(map[string]string, len(e.vars)+1)
	for k, v := range e.vars {
		m[k] = v
	}
	m[name] = value
	return EnvFromMap(m)
}

// ChildMarkers are the variables every process relay starts receives, so
// tools and scripts know they run under a coding agent.
func ChildMarkers() [][2]string {
	return [][2]string{{EnvAIAgent, AIAgentValue}, {EnvCodingAgent, CodingAgentTrue}}
}

// IsEnvName reports whether s can name an environment variable in ${NAME}
// and $NAME references (letters, digits not first, underscore).
func IsEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
