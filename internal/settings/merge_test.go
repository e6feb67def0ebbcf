package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveTools(t *testing.T) {
	tests := []struct {
		name                string
		user, project       []string
		hasUser, hasProject bool
		want                string
	}{
		{"nothing set", nil, nil, false, false, "read,bash,edit,write"},
		{"doc: +codemode next to defaults", []string{"+codemode"}, nil, true, false, "read,bash,edit,write,codemode"},
		{"doc: replace bash with powershell and add grep", []string{"-bash", "+powershell", "+grep"}, nil, true, false, "read,edit,write,powershell,grep"},
		{"plain names replace the defaults", []string{"read", "grep"}, nil, true, false, "read,grep"},
		{"empty list disables built-ins", []string{}, nil, true, false, ""},
		{"plain names first, then modifiers in order", []string{"-read", "read", "ls", "+find", "-ls"}, nil, true, false, "find"},
		{"add existing is a no-op", []string{"+read"}, nil, true, false, "read,bash,edit,write"},
		{"remove missing is a no-op", []string{"-grep"}, nil, true, false, "read,bash,edit,write"},
		{"bare + and - ignored", []string{"+", "-"}, nil, true, false, "read,bash,edit,write"},
		{"project modifiers change the user's list", []string{"read", "grep"}, []string{"+ls", "-grep"}, true, true, "read,ls"},
		{"project modifiers on user modifiers", []string{"+grep"}, []string{"-bash"}, true, true, "read,edit,write,grep"},
		{"project plain name replaces the user's list", []string{"read", "grep"}, []string{"bash", "+ls"}, true, true, "bash,ls"},
		{"project only", nil, []string{"-write"}, false, true, "read,bash,edit"},
		{"empty project list keeps the user's list", []string{"read"}, []string{}, true, true, "read"},
		{"empty project list alone disables", nil, []string{}, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(ResolveTools(tt.user, tt.project, tt.hasUser, tt.hasProject), ",")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMergeUserAndProject(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{
		"theme": "dark",
		"defaultThinkingLevel": "low",
		"compaction": {"reserveTokens": 1000, "modelOverrides": {"a/m": {"reserveTokens": 1}, "b/m": {"keepRecentTokens": 2}}},
		"retry": {"maxRetries": 5, "provider": {"maxRetries": 2}},
		"enabledModels": ["a/*", "b/*"],
		"defaultTools": ["read", "grep"],
		"extensions": ["ext/user.ts", "-builtin:mcp"],
		"packages": ["npm:u"],
		"sessionDir": "user-sessions",
		"defaultProjectTrust": "always",
		"cacheWarming": "off"
	}`)
	e.project(t, `{
		"theme": "light",
		"compaction": {"keepRecentTokens": 3000, "modelOverrides": {"a/m": {"keepRecentTokens": 10}}},
		"retry": {"provider": {"timeoutMs": 9}},
		"enabledModels": ["c/*"],
		"defaultTools": ["+ls"],
		"extensions": ["ext/proj.ts", "+builtin:mcp"],
		"packages": [{"source": "./pkg", "skills": []}],
		"defaultProjectTrust": "never",
		"httpProxy": "http://evil:1",
		"cacheWarming": "idle",
		"sessionDir": "proj-sessions"
	}`)
	s, diags := e.load(true)
	golden(t, "diagnostics/merge_agent_only.golden", render(diags, e))

	checks := []error{
		want(s.Theme, "light"),                                           // project overrides user
		want(string(s.DefaultThinkingLevel), "low"),                      // user kept
		want(s.Compaction.ReserveTokens, 1000),                           // nested merge keeps user field
		want(s.Compaction.KeepRecentTokens, 3000),                        // and takes the project field
		want(s.CompactionFor("a", "m"), CompactionSettings{true, 1, 10}), // overrides merged per field
		want(s.CompactionFor("b", "m"), CompactionSettings{true, 1000, 2}),
		want(s.Retry.MaxRetries, 5),
		want(s.Retry.Provider.MaxRetries, 2),
		want(s.ProviderTimeoutMs(), 9),
		want(strings.Join(s.EnabledModels, ","), "c/*"), // arrays replace
		want(strings.Join(s.DefaultTools, ","), "read,grep,ls"),
		want(s.DefaultProjectTrust, TrustAlways), // agent-only: project refused
		want(s.CacheWarming, CacheWarmingOff),
		want(s.HTTPProxy, ""),
		want(s.SessionDir, filepath.Join(e.cwd, "proj-sessions")),
	}
	for i, err := range checks {
		if err != nil {
			t.Errorf("check %d: %v", i, err)
		}
	}

	// Resource lists are combined, user first, each from its own base.
	var got []string
	for _, r := range s.Extensions {
		got = append(got, string(r.Scope)+":"+r.Path())
	}
	wantExt := []string{
		"user:" + filepath.Join(e.agent, "ext/user.ts"),
		"user:builtin:mcp",
		"project:" + filepath.Join(e.cwd, ".relay", "ext/proj.ts"),
		"project:builtin:mcp",
	}
	if err := want(got, wantExt); err != nil {
		t.Error(err)
	}
	if s.Extensions[1].Op() != '-' || s.Extensions[3].Op() != '+' {
		t.Errorf("ops lost: %+v", s.Extensions)
	}
	if len(s.Packages) != 2 || s.Packages[0].Source != "npm:u" || s.Packages[0].IsLocal() ||
		s.Packages[1].LocalPath() != filepath.Join(e.cwd, ".relay", "pkg") || s.Packages[1].Skills == nil || len(s.Packages[1].Skills) != 0 {
		t.Errorf("packages = %+v", s.Packages)
	}
}

func TestUntrustedProject(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{"theme": "dark", "sessionDir": "~/user-sessions"}`)
	e.project(t, `{"theme": "light", "extensions": ["x.ts"], "sessionDir": "/abs/proj-sessions", "bogus": 1}`)
	s, diags := e.load(false)
	if len(diags) != 0 {
		t.Errorf("untrusted project must not be validated beyond sessionDir: %v", diags)
	}
	if err := all(want(s.Theme, "dark"), want(len(s.Extensions), 0), want(s.SessionDir, "/abs/proj-sessions")); err != nil {
		t.Error(err)
	}

	// Without a project sessionDir the user's applies, ~ expanded.
	e.project(t, `{"theme": "light"}`)
	s, _ = e.load(false)
	if err := want(s.SessionDir, filepath.Join(e.home, "user-sessions")); err != nil {
		t.Error(err)
	}

	// A broken project file reports only what sessionDir needs.
	e.project(t, `{"sessionDir": 5, "theme": 1}`)
	s, diags = e.load(false)
	golden(t, "diagnostics/untrusted_session_dir.golden", render(diags, e))
	if err := want(s.SessionDir, filepath.Join(e.home, "user-sessions")); err != nil {
		t.Error(err)
	}
	e.project(t, `{`)
	_, diags = e.load(false)
	if len(diags) != 1 || diags[0].Severity != SeverityError {
		t.Errorf("want one syntax error, got %v", diags)
	}
}

func TestProjectSessionDir(t *testing.T) {
	e := newEnv(t)
	if dir, diags := ProjectSessionDir(e.cwd); dir != "" || diags != nil {
		t.Errorf("no file: %q %v", dir, diags)
	}
	e.project(t, `{"sessionDir": "rel/s"}`)
	if dir, diags := ProjectSessionDir(e.cwd); dir != "rel/s" || diags != nil {
		t.Errorf("got %q %v", dir, diags)
	}
	s, _ := e.load(false)
	if err := want(s.SessionDir, filepath.Join(e.cwd, "rel/s")); err != nil {
		t.Error(err)
	}
}

func TestBadProjectValueFallsBackToUser(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{"editorPaddingX": 2}`)
	e.project(t, `{"editorPaddingX": 9}`)
	s, diags := e.load(true)
	if len(diags) != 1 || !strings.Contains(diags[0].File, ".relay") || diags[0].Key != "editorPaddingX" {
		t.Errorf("diags = %v", diags)
	}
	if s.EditorPaddingX != 2 {
		t.Errorf("editorPaddingX = %d, want the user's 2", s.EditorPaddingX)
	}
}
