package models

import (
	"context"
	"errors"
	"github.com/relay-agent/relay/internal/llm"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// setup writes auth.json and models.json into a temp agent dir and returns
// a registry over them with env as the only environment.
func setup(t *testing.T, authJSON, modelsJSON string, env map[string]string) *Registry {
	t.Helper()
	dir := t.TempDir()
	if authJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, "auth.json"), []byte(authJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if modelsJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(modelsJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewRegistry(Options{
		ModelsJSON: filepath.Join(dir, "models.json"),
		AuthJSON:   filepath.Join(dir, "auth.json"),
		Getenv:     func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countCommands replaces the command runner for one test: it returns
// "out:<command>" (or fails for commands starting with "fail") and counts
// calls per command.
func countCommands(t *testing.T) map[string]int {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	old := commandRunner
	commandRunner = func(ctx context.Context, cmd string) (string, error) {
		mu.Lock()
		calls[cmd]++
		mu.Unlock()
		if strings.HasPrefix(cmd, "fail") {
			return "", errors.New("exit status 1")
		}
		if strings.HasPrefix(cmd, "empty") {
			return "", nil
		}
		return "out:" + cmd, nil
	}
	t.Cleanup(func() { commandRunner = old })
	return calls
}

const groqModels = `{"providers": {"groq": {"apiKey": "%s"}}}`

func TestCredentialPrecedence(t *testing.T) {
	countCommands(t)
	cases := []struct {
		name       string
		cli        string
		auth       string
		modelsKey  string // groq apiKey in models.json ("" = none)
		env        map[string]string
		wantKey    string
		wantSource string
		wantErr    string
	}{
		{name: "cli beats everything", cli: "cli-key", auth: `{"groq":{"type":"api_key","key":"stored"}}`, modelsKey: "mj",
			env: map[string]string{"GROQ_API_KEY": "env"}, wantKey: "cli-key", wantSource: SourceRuntime},
		{name: "auth.json beats models.json and env", auth: `{"groq":{"type":"api_key","key":"stored"}}`, modelsKey: "mj",
			env: map[string]string{"GROQ_API_KEY": "env"}, wantKey: "stored", wantSource: SourceAuthFile},
		{name: "models.json beats env", modelsKey: "mj", env: map[string]string{"GROQ_API_KEY": "env"},
			wantKey: "mj", wantSource: SourceModelsJSON},
		{name: "env last", env: map[string]string{"GROQ_API_KEY": "env"}, wantKey: "env", wantSource: "env:GROQ_API_KEY"},
		{name: "auth $VAR", auth: `{"groq":{"type":"api_key","key":"$MY_GROQ"}}`, env: map[string]string{"MY_GROQ": "v1"},
			wantKey: "v1", wantSource: SourceAuthFile},
		{name: "auth ${VAR} with entry env", auth: `{"groq":{"type":"api_key","key":"${K}","env":{"K":"from-entry"}}}`,
			env: map[string]string{"K": "from-process"}, wantKey: "from-entry", wantSource: SourceAuthFile},
		{name: "unset auth var falls through", auth: `{"groq":{"type":"api_key","key":"$NOPE"}}`, modelsKey: "mj",
			wantKey: "mj", wantSource: SourceModelsJSON},
		{name: "auth command", auth: `{"groq":{"type":"api_key","key":"!vault read groq"}}`,
			wantKey: "out:vault read groq", wantSource: SourceAuthFile},
		{name: "failing auth command is reported, not skipped", auth: `{"groq":{"type":"api_key","key":"!fail"}}`,
			env:     map[string]string{"GROQ_API_KEY": "env"},
			wantErr: `auth.json key command for provider "groq" failed: exit status 1`},
		{name: "failing models.json command is reported", modelsKey: "!fail",
			wantErr: `models.json apiKey command for provider "groq" failed: exit status 1`},
		{name: "models.json command", modelsKey: "!get-key", wantKey: "out:get-key", wantSource: SourceModelsJSON},
		{name: "models.json $VAR", modelsKey: "$GK", env: map[string]string{"GK": "g"}, wantKey: "g", wantSource: SourceModelsJSON},
		{name: "oauth access token", auth: `{"groq":{"type":"oauth","access":"tok","refresh":"r","expires":4102444800000}}`,
			wantKey: "tok", wantSource: SourceAuthOAuth},
		{name: "oauth without expiry never expires", auth: `{"groq":{"type":"oauth","access":"tok"}}`,
			wantKey: "tok", wantSource: SourceAuthOAuth},
		{name: "expired oauth token of a provider without sign-in", auth: `{"groq":{"type":"oauth","access":"tok","refresh":"r","expires":1}}`,
			wantErr: "groq: the stored sign-in has expired and cannot be renewed; sign in again: run /login groq"},
		{name: "nothing", wantErr: "No API key for provider: groq\nSet GROQ_API_KEY or run /login."},
		{name: "invalid shape names the provider", auth: `{"groq":{"type":"password","key":"x"}}`,
			wantErr: `provider "groq": "type" must be "api_key" or "oauth", got "password"`},
		{name: "invalid key type", auth: `{"groq":{"type":"api_key","key":7}}`, wantErr: `provider "groq": "key" must be a string`},
		{name: "oauth without access", auth: `{"groq":{"type":"oauth"}}`, wantErr: `provider "groq": "access" is required`},
		{name: "not an object", auth: `{"groq":"sk-123"}`, wantErr: `provider "groq": expected an object`},
		{name: "broken file", auth: `{"groq":`, wantErr: "expected an object keyed by provider id"},
		{name: "cli key ignores a broken auth.json", cli: "c", auth: `{"groq":`, wantKey: "c", wantSource: SourceRuntime},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mj := ""
			if c.modelsKey != "" {
				mj = strings.Replace(groqModels, "%s", c.modelsKey, 1)
			}
			r := setup(t, c.auth, mj, c.env)
			m := r.Find("groq", "openai/gpt-oss-120b")
			a, err := r.ResolveAuthSource(context.Background(), m, c.cli)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.APIKey != c.wantKey || a.Source != c.wantSource {
				t.Errorf("got %q from %q, want %q from %q", a.APIKey, a.Source, c.wantKey, c.wantSource)
			}
		})
	}
}

func TestMissingKeyError(t *testing.T) {
	r := setup(t, "", "", nil)
	_, _, err := r.ResolveAuth(context.Background(), r.Find("anthropic", "claude-opus-4-8"), "")
	var mk *MissingKeyError
	if !errors.As(err, &mk) {
		t.Fatalf("err = %T %v", err, err)
	}
	lines := strings.Split(err.Error(), "\n")
	if lines[0] != "No API key for provider: anthropic" {
		t.Errorf("first line = %q", lines[0])
	}
	if lines[1] != "Set ANTHROPIC_OAUTH_TOKEN, ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, or run /login." {
		t.Errorf("hint = %q", lines[1])
	}
	custom := setup(t, "", `{"providers":{"box":{"baseUrl":"http://h/v1","api":"openai-completions","models":[{"id":"m"}]}}}`, nil)
	_, _, err = custom.ResolveAuth(context.Background(), custom.Find("box", "m"), "")
	if err == nil || !strings.HasSuffix(err.Error(), `Run /login, or set "apiKey" for provider "box" in models.json.`) {
		t.Errorf("custom provider hint: %v", err)
	}
}

func TestAnthropicBearerAndAmbient(t *testing.T) {
	r := setup(t, "", "", map[string]string{"ANTHROPIC_AUTH_TOKEN": "bearer-1"})
	a, err := r.ResolveAuthSource(context.Background(), r.Find("anthropic", "claude-opus-4-8"), "")
	if err != nil || a.APIKey != "" || a.Headers["Authorization"] != "Bearer bearer-1" || a.Source != "env:ANTHROPIC_AUTH_TOKEN" {
		t.Errorf("bearer: %+v %v", a, err)
	}
	r = setup(t, "", "", map[string]string{"ANTHROPIC_AUTH_TOKEN": "b", "ANTHROPIC_API_KEY": "k"})
	a, _ = r.ResolveAuthSource(context.Background(), r.Find("anthropic", "claude-opus-4-8"), "")
	if a.APIKey != "k" || a.Headers["Authorization"] != "" {
		t.Errorf("API key must win over the bearer token: %+v", a)
	}
	r = setup(t, "", "", map[string]string{"AWS_PROFILE": "dev"})
	if !r.HasAuth("amazon-bedrock") || r.AuthSource("amazon-bedrock") != SourceAmbient || r.HasAuth("anthropic") {
		t.Errorf("ambient bedrock credentials")
	}
	// Workload identity federation: the anthropic client exchanges the
	// identity token; the registry reports ambient credentials.
	r = setup(t, "", "", map[string]string{"ANTHROPIC_FEDERATION_RULE_ID": "fdrl_1", "ANTHROPIC_ORGANIZATION_ID": "org_1",
		"ANTHROPIC_IDENTITY_TOKEN_FILE": "/var/run/secrets/anthropic/id-token"})
	a, err = r.ResolveAuthSource(context.Background(), r.Find("anthropic", "claude-opus-4-8"), "")
	if err != nil || a.APIKey != llm.AmbientKey || a.Source != SourceAmbient {
		t.Errorf("federation: %+v %v", a, err)
	}
	r = setup(t, "", "", map[string]string{"ANTHROPIC_FEDERATION_RULE_ID": "fdrl_1", "ANTHROPIC_IDENTITY_TOKEN_FILE": "/f"})
	if r.HasAuth("anthropic") {
		t.Error("federation without an organization counted as configured")
	}
}

func TestHasAuthRunsNoCommands(t *testing.T) {
	calls := countCommands(t)
	r := setup(t, `{"groq":{"type":"api_key","key":"!secret-tool groq"}}`,
		`{"providers":{"box":{"baseUrl":"http://h/v1","api":"openai-completions","apiKey":"!other","models":[{"id":"m"}]}}}`, nil)
	if !r.HasAuth("groq") || !r.HasAuth("box") || r.HasAuth("openai") {
		t.Error("HasAuth")
	}
	avail := r.Available(context.Background())
	for _, m := range avail {
		if m.Provider != "groq" && m.Provider != "box" {
			t.Errorf("unexpected available model %s/%s", m.Provider, m.ID)
		}
	}
	if len(calls) != 0 {
		t.Errorf("HasAuth/Available ran commands: %v", calls)
	}
}

func TestAuthCommandCachedModelsCommandNot(t *testing.T) {
	calls := countCommands(t)
	r := setup(t, `{"groq":{"type":"api_key","key":"!vault groq"},"cerebras":{"type":"api_key","key":"!fail-once"}}`,
		`{"providers":{"box":{"baseUrl":"http://h/v1","api":"openai-completions","apiKey":"!box-key",
		  "headers":{"X-Sig":"!sign"},"models":[{"id":"m"}]}}}`, nil)
	ctx := context.Background()
	groq, box, cer := r.Find("groq", "llama-3.1-8b-instant"), r.Find("box", "m"), r.Find("cerebras", "gpt-oss-120b")
	for range 3 {
		if k, _, _ := r.ResolveAuth(ctx, groq, ""); k != "out:vault groq" {
			t.Fatalf("groq key %q", k)
		}
		k, h, _ := r.ResolveAuth(ctx, box, "")
		if k != "out:box-key" || h["X-Sig"] != "out:sign" {
			t.Fatalf("box key %q headers %v", k, h)
		}
		if _, _, err := r.ResolveAuth(ctx, cer, ""); err == nil {
			t.Fatal("a failed command must leave the key unresolved")
		}
	}
	if calls["vault groq"] != 1 {
		t.Errorf("auth.json command ran %d times, want once per process", calls["vault groq"])
	}
	if calls["fail-once"] != 1 {
		t.Errorf("failed auth.json command ran %d times, want once (until restart)", calls["fail-once"])
	}
	if calls["box-key"] != 3 || calls["sign"] != 3 {
		t.Errorf("models.json commands ran %d/%d times, want every request", calls["box-key"], calls["sign"])
	}
}

func TestRealShellCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	r := setup(t, `{"groq":{"type":"api_key","key":"!printf '  shell-key\\n'"}}`, "", nil)
	k, _, err := r.ResolveAuth(context.Background(), r.Find("groq", "llama-3.1-8b-instant"), "")
	if err != nil || k != "shell-key" {
		t.Errorf("key %q err %v", k, err)
	}
}

func TestLoginLogoutFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	r, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Login("groq", "gsk-1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Login("openai", "sk-2"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "auth.json")
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("auth.json mode %v, want 0600", st.Mode().Perm())
		}
		dst, _ := os.Stat(dir)
		if dst.Mode().Perm() != 0o700 {
			t.Errorf("agent dir mode %v, want 0700", dst.Mode().Perm())
		}
	}
	data, _ := os.ReadFile(path)
	want := "{\n  \"groq\": {\"key\":\"gsk-1\",\"type\":\"api_key\"},\n  \"openai\": {\"key\":\"sk-2\",\"type\":\"api_key\"}\n}\n"
	if string(data) != want {
		t.Errorf("auth.json =\n%s\nwant\n%s", data, want)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Error("lock file left behind")
	}
	// A fresh registry (another process) sees the stored key.
	r2, _ := Load(dir, nil)
	if src := r2.AuthSource("groq"); src != SourceAuthFile {
		t.Errorf("source = %q", src)
	}
	if err := r2.Logout("groq"); err != nil {
		t.Fatal(err)
	}
	if r2.HasAuth("groq") {
		t.Error("logout did not remove the credential")
	}
	r.Auth().Reload()
	if r.HasAuth("groq") || !r.HasAuth("openai") {
		t.Error("reload after another process's logout")
	}
}

func TestLockContention(t *testing.T) {
	dir := t.TempDir()
	store := NewAuthStore(filepath.Join(dir, "auth.json"))
	old := lockTimeout
	lockTimeout = 50e6
	t.Cleanup(func() { lockTimeout = old })
	if err := os.WriteFile(store.Path()+".lock", []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.Login("groq", "k"); err == nil || !strings.Contains(err.Error(), "held by another relay process") {
		t.Fatalf("err = %v", err)
	}
	os.Remove(store.Path() + ".lock")
	lockTimeout = old
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewAuthStore(store.Path())
			if err := s.Login("p"+string(rune('a'+i)), "k"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ids, err := NewAuthStore(store.Path()).Providers()
	if err != nil || len(ids) != 8 {
		t.Errorf("concurrent logins kept %v (%v), want 8 entries", ids, err)
	}
}

func TestResolveAuthConcurrent(t *testing.T) {
	countCommands(t)
	r := setup(t, `{"groq":{"type":"api_key","key":"!k"}}`, "", map[string]string{"OPENAI_API_KEY": "o"})
	groq, openai := r.Find("groq", "llama-3.1-8b-instant"), r.Find("openai", "gpt-5.5")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := groq
			if i%2 == 0 {
				m = openai
			}
			if _, _, err := r.ResolveAuth(context.Background(), m, ""); err != nil {
				t.Error(err)
			}
			_ = r.Available(context.Background())
			if i == 5 {
				_ = r.Reload()
			}
		}()
	}
	wg.Wait()
}

// Real commands that hang or fail: the hang ends within CommandTimeout
// (with a child that keeps the pipe open too), and the error names the
// provider, the value and the reason (exit status and stderr, timeout,
// no output) instead of "No API key".
func TestShellCommandFailures(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	old := CommandTimeout
	CommandTimeout = 300 * time.Millisecond
	t.Cleanup(func() { CommandTimeout = old })
	tests := []struct {
		name, auth, models, provider, model, want string
	}{
		{name: "hang", auth: `{"groq":{"type":"api_key","key":"!sleep 30"}}`, provider: "groq", model: "llama-3.1-8b-instant",
			want: `auth.json key command for provider "groq" failed: timed out after 300ms`},
		{name: "hang with a child holding stdout", auth: `{"groq":{"type":"api_key","key":"!sleep 30 & sleep 30"}}`,
			provider: "groq", model: "llama-3.1-8b-instant",
			want: `auth.json key command for provider "groq" failed: timed out after 300ms`},
		{name: "exit status and stderr", auth: `{"groq":{"type":"api_key","key":"!echo 'vault: permission denied' >&2; exit 3"}}`,
			provider: "groq", model: "llama-3.1-8b-instant",
			want: `auth.json key command for provider "groq" failed: exit status 3: vault: permission denied`},
		{name: "no output", auth: `{"groq":{"type":"api_key","key":"!true"}}`, provider: "groq", model: "llama-3.1-8b-instant",
			want: `auth.json key command for provider "groq" failed: it printed nothing`},
		{name: "models.json header", provider: "box", model: "m",
			models: `{"providers":{"box":{"baseUrl":"http://h/v1","api":"openai-completions","apiKey":"k",
			  "headers":{"X-Sig":"!echo no signer >&2; exit 2"},"models":[{"id":"m"}]}}}`,
			want: `models.json header "X-Sig" command for provider "box" failed: exit status 2: no signer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := setup(t, tt.auth, tt.models, nil)
			start := time.Now()
			_, _, err := r.ResolveAuth(context.Background(), r.Find(tt.provider, tt.model), "")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant   %s", err, tt.want)
			}
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Provider != tt.provider {
				t.Errorf("not a CommandError for %s: %#v", tt.provider, err)
			}
			// Generous: catches a command left to run for its 30 s.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}
