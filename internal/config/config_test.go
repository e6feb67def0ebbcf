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
			got, err := EnvFromMap(map[string]string{EnvAgentDir: tt.env}).AgentDir()
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
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
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

}

func TestEnv(t *testing.T) {
	t.Setenv("HOME", "/h")
	tests := []struct {
		name  string
		vars  map[string]string
		check func(Env) bool
	}{
		{"offline implies no version check", map[string]string{EnvOffline: "yes"}, func(e Env) bool { return e.Offline && e.SkipVersionCheck }},
		{"offline off", map[string]string{EnvOffline: "0"}, func(e Env) bool { return !e.Offline && !e.SkipVersionCheck }},
		{"skip version check", map[string]string{EnvSkipVersionCheck: "1"}, func(e Env) bool { return !e.Offline && e.SkipVersionCheck }},
		{"telemetry no", map[string]string{EnvTelemetry: "no"}, func(e Env) bool { return !e.Telemetry && e.TelemetrySet }},
		{"telemetry garbage", map[string]string{EnvTelemetry: "maybe"}, func(e Env) bool { return !e.TelemetrySet }},
		{"cache long", map[string]string{EnvCacheRetention: "LONG"}, func(e Env) bool { return e.CacheLong }},
		{"cache short", map[string]string{EnvCacheRetention: "short"}, func(e Env) bool { return !e.CacheLong }},
		{"package dir tilde", map[string]string{EnvPackageDir: "~/pkgs"}, func(e Env) bool { return e.PackageDir == "/h/pkgs" }},
		{"laya base trimmed", map[string]string{EnvLayaBaseURL: " http://x:1/v1 "}, func(e Env) bool { return e.LayaBaseURL == "http://x:1/v1" }},
		{"editor prefers VISUAL", map[string]string{"VISUAL": "emacs", "EDITOR": "vim"}, func(e Env) bool { return e.Terminal.Editor == "emacs" }},
		{"editor falls back to EDITOR", map[string]string{"EDITOR": "vim"}, func(e Env) bool { return e.Terminal.Editor == "vim" }},
		{"ssh and tmux", map[string]string{"SSH_TTY": "/dev/pts/1", "TMUX": "x"}, func(e Env) bool { return e.Terminal.SSH && e.Terminal.Tmux }},
		{"provider keys by name", map[string]string{"ANTHROPIC_API_KEY": "k"}, func(e Env) bool { return e.Get("ANTHROPIC_API_KEY") == "k" }},
	}
	for _, tt := range tests {
		if !tt.check(EnvFromMap(tt.vars)) {
			t.Errorf("%s: %+v", tt.name, EnvFromMap(tt.vars))
		}
	}
	e := EnvFromMap(nil).With(EnvOffline, "1")
	if !e.Offline || !e.SkipVersionCheck {
		t.Error("With(RELAY_OFFLINE) did not recompute the typed fields")
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
