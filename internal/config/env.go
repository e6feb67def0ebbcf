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

// Offline reports RELAY_OFFLINE: no automatic network activity (catalog
// refresh, version check).
func Offline() bool { return Truthy(os.Getenv(EnvOffline)) }

// SkipVersionCheck reports whether the latest-release check is off, either by
// RELAY_SKIP_VERSION_CHECK or because relay is offline.
func SkipVersionCheck() bool {
	return Truthy(os.Getenv(EnvSkipVersionCheck)) || Offline()
}

// TelemetryOverride reads RELAY_TELEMETRY; set is false when the variable
// is absent or not one of the documented spellings, and the
// enableInstallTelemetry setting decides.
func TelemetryOverride() (enabled, set bool) {
	return ParseBool(os.Getenv(EnvTelemetry))
}

// CacheRetention is the prompt cache retention tier.
type CacheRetention string

const (
	CacheNone  CacheRetention = "none"
	CacheShort CacheRetention = "short"
	CacheLong  CacheRetention = "long"
)

// CacheRetentionFromEnv returns "long" when RELAY_CACHE_RETENTION=long and
// the default "short" otherwise.
func CacheRetentionFromEnv() CacheRetention {
	if strings.EqualFold(strings.TrimSpace(os.Getenv(EnvCacheRetention)), "long") {
		return CacheLong
	}
	return CacheShort
}

// PackageDir returns RELAY_PACKAGE_DIR (with ~ expanded), or "".
func PackageDir() string {
	v := os.Getenv(EnvPackageDir)
	if v == "" {
		return ""
	}
	if e, err := ExpandHome(v); err == nil {
		return e
	}
	return v
}

// ShareViewerURL returns RELAY_SHARE_VIEWER_URL or "".
func ShareViewerURL() string { return strings.TrimSpace(os.Getenv(EnvShareViewerURL)) }

// LayaBaseURLFromEnv returns LAYA_BASE_URL or "".
func LayaBaseURLFromEnv() string { return strings.TrimSpace(os.Getenv(EnvLayaBaseURL)) }

// ChildMarkers are the variables relay sets in its own environment so that
// every child process inherits them (CLI and RPC entry points).
func ChildMarkers() [][2]string {
	return [][2]string{{EnvAIAgent, AIAgentValue}, {EnvCodingAgent, CodingAgentTrue}}
}
