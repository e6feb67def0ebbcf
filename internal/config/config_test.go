package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAgentDir(t *testing.T) {
	home := t.TempDir()
	cwd, _ := os.Getwd()
	tests := []struct {
		name, env, want string
	}{
		{"default", "", filepath.Join(home, ".relay", "agent")},
		{"env absolute", "/opt/relay", "/opt/relay"},
		{"env tilde", "~/custom/agent", filepath.Join(home, "custom", "agent")},
		{"env tilde alone", "~", home},
		{"env relative", "rel/agent", filepath.Join(cwd, "rel", "agent")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv(EnvAgentDir, tt.env)
			got, err := AgentDir()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("AgentDir() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpandHomeAndResolvePath(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	tests := []struct{ base, p, want string }{
		{"/base", "", ""},
		{"/base", "~", "/home/u"},
		{"/base", "~/x/y", "/home/u/x/y"},
		{"/base", "~user/x", "/base/~user/x"},
		{"/base", "rel/../a", "/base/a"},
		{"/base", "/abs//p/", "/abs/p"},
	}
	for _, tt := range tests {
		if got := ResolvePath(tt.base, tt.p); got != tt.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", tt.base, tt.p, got, tt.want)
		}
	}
}

func TestWellKnownPaths(t *testing.T) {
	a := Agent{"/ag"}
	p := Project{"/proj"}
	tests := []struct{ got, want string }{
		{a.Settings(), "/ag/settings.json"},
		{a.Keybindings(), "/ag/keybindings.json"},
		{a.MCP(), "/ag/mcp.json"},
		{a.Models(), "/ag/models.json"},
		{a.Auth(), "/ag/auth.json"},
		{a.Trust(), "/ag/trust.json"},
		{a.System(), "/ag/SYSTEM.md"},
		{a.AppendSystem(), "/ag/APPEND_SYSTEM.md"},
		{a.Extensions(), "/ag/extensions"},
		{a.Skills(), "/ag/skills"},
		{a.Prompts(), "/ag/prompts"},
		{a.Themes(), "/ag/themes"},
		{a.Sessions(), "/ag/sessions"},
		{a.DebugLog(), "/ag/relay-debug.log"},
		{a.Laya(), "/ag/laya"},
		{p.Dir(), "/proj/.relay"},
		{p.Settings(), "/proj/.relay/settings.json"},
		{p.MCP(), "/proj/.relay/mcp.json"},
		{p.System(), "/proj/.relay/SYSTEM.md"},
		{p.AppendSystem(), "/proj/.relay/APPEND_SYSTEM.md"},
		{p.Extensions(), "/proj/.relay/extensions"},
		{p.Skills(), "/proj/.relay/skills"},
		{p.Prompts(), "/proj/.relay/prompts"},
		{p.Themes(), "/proj/.relay/themes"},
		{DefaultSessionDir("/ag", "/home/u/my proj"), "/ag/sessions/--home-u-my proj--"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestEncodeSessionCwd(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/proj", "--home-u-proj--"},
		{`C:\Users\u\proj`, "--C--Users-u-proj--"},
		{"/", "----"},
	}
	for _, tt := range tests {
		if got := EncodeSessionCwd(tt.in); got != tt.want {
			t.Errorf("EncodeSessionCwd(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSessionDirOverride(t *testing.T) {
	tests := []struct {
		name, flag, env, setting, want string
		ok                             bool
	}{
		{"none", "", "", "", "", false},
		{"setting", "", "", "/s", "/s", true},
		{"env beats setting", "", "rel", "/s", "/cwd/rel", true},
		{"flag beats env", "/f", "/e", "/s", "/f", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvSessionDir, tt.env)
			got, ok := SessionDirOverride(tt.flag, tt.setting, "/cwd")
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestEnvHelpers(t *testing.T) {
	for _, tt := range []struct {
		in      string
		val, ok bool
	}{
		{"1", true, true}, {"true", true, true}, {"YES", true, true}, {" yes ", true, true},
		{"0", false, true}, {"False", false, true}, {"no", false, true},
		{"", false, false}, {"on", false, false}, {"2", false, false},
	} {
		v, ok := ParseBool(tt.in)
		if v != tt.val || ok != tt.ok {
			t.Errorf("ParseBool(%q) = %v,%v want %v,%v", tt.in, v, ok, tt.val, tt.ok)
		}
	}

	t.Setenv(EnvOffline, "yes")
	t.Setenv(EnvSkipVersionCheck, "")
	if !Offline() || !SkipVersionCheck() {
		t.Error("RELAY_OFFLINE=yes: want offline and no version check")
	}
	t.Setenv(EnvOffline, "0")
	if Offline() || SkipVersionCheck() {
		t.Error("RELAY_OFFLINE=0: want online")
	}
	t.Setenv(EnvSkipVersionCheck, "1")
	if !SkipVersionCheck() {
		t.Error("RELAY_SKIP_VERSION_CHECK=1 ignored")
	}

	t.Setenv(EnvTelemetry, "no")
	if v, set := TelemetryOverride(); v || !set {
		t.Errorf("RELAY_TELEMETRY=no: got %v,%v", v, set)
	}
	t.Setenv(EnvTelemetry, "maybe")
	if _, set := TelemetryOverride(); set {
		t.Error("RELAY_TELEMETRY=maybe should not be set")
	}

	t.Setenv(EnvCacheRetention, "long")
	if CacheRetentionFromEnv() != CacheLong {
		t.Error("want long")
	}
	t.Setenv(EnvCacheRetention, "short")
	if CacheRetentionFromEnv() != CacheShort {
		t.Error("want short")
	}

	t.Setenv("HOME", "/h")
	t.Setenv(EnvPackageDir, "~/pkgs")
	if got := PackageDir(); got != "/h/pkgs" {
		t.Errorf("PackageDir = %q", got)
	}
	t.Setenv(EnvLayaBaseURL, " http://x:1/v1 ")
	if got := LayaBaseURLFromEnv(); got != "http://x:1/v1" {
		t.Errorf("LayaBaseURLFromEnv = %q", got)
	}
}

func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unsupported")
	}
	want, _ := filepath.EvalSymlinks(real)
	if got := Canonical(link); got != want {
		t.Errorf("Canonical(link) = %q, want %q", got, want)
	}
	missing := filepath.Join(dir, "nope", "x")
	if got := Canonical(missing); got != missing {
		t.Errorf("Canonical(missing) = %q", got)
	}
}
