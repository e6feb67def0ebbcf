package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/browser"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
)

const authUsage = `Usage:
  relay auth print-api-key [--provider <provider>] [--model <model>]
  relay auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  relay auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Auth commands require at least one of --provider or --model (a lone argument
is taken as the provider). Checks refresh expired OAuth credentials by default;
--no-refresh prevents this. --credentials emits the credential, or includes it
in JSON output. Credential-printing commands write secrets to stdout.
`

// authCmd is one parsed `relay auth` invocation.
type authCmd struct {
	kind        string // check | print-api-key | print-bearer-token
	provider    string
	model       string
	json        bool
	credentials bool
	noRefresh   bool
	minExpiry   time.Duration
}

var durationRE = regexp.MustCompile(`^(?i)(\d+)(ms|s|m|h)$`)

func parseAuthCmd(args []string) (*authCmd, error) {
	if len(args) == 0 {
		return nil, nil
	}
	c := &authCmd{kind: args[0], minExpiry: 30 * time.Minute}
	switch c.kind {
	case "check", "print-api-key", "print-bearer-token":
	default:
		return nil, fmt.Errorf(`unknown auth command %q. Use "relay auth print-api-key", "relay auth print-bearer-token", or "relay auth check".`, args[0])
	}
	value := func(i *int, flag string) (string, error) {
		if *i+1 >= len(args) || strings.HasPrefix(args[*i+1], "--") {
			return "", fmt.Errorf("%s needs a value", flag)
		}
		*i++
		return args[*i], nil
	}
	var positional []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, inline, hasInline := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			positional = append(positional, a)
			continue
		}
		get := func() (string, error) {
			if hasInline {
				return inline, nil
			}
			return value(&i, name)
		}
		var err error
		switch name {
		case "--provider":
			c.provider, err = get()
		case "--model":
			c.model, err = get()
		case "--min-expiry":
			if c.kind != "print-bearer-token" {
				return nil, errors.New("--min-expiry is only supported by print-bearer-token")
			}
			var v string
			if v, err = get(); err == nil {
				m := durationRE.FindStringSubmatch(v)
				if m == nil {
					return nil, errors.New("--min-expiry must use a duration such as 30m or 1h")
				}
				n, _ := strconv.Atoi(m[1])
				unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[strings.ToLower(m[2])]
				c.minExpiry = time.Duration(n) * unit
			}
		case "--json", "--credentials", "--no-refresh":
			if c.kind != "check" {
				return nil, fmt.Errorf("%s is only supported by auth check", name)
			}
			c.json = c.json || name == "--json"
			c.credentials = c.credentials || name == "--credentials"
			c.noRefresh = c.noRefresh || name == "--no-refresh"
		default:
			return nil, fmt.Errorf("unknown option %s for \"auth %s\"", name, c.kind)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(positional) == 1 && c.provider == "" && c.model == "" {
		c.provider = positional[0]
	} else if len(positional) > 0 {
		return nil, errors.New("auth commands only accept --provider and --model")
	}
	c.provider, c.model = strings.TrimSpace(c.provider), strings.TrimSpace(c.model)
	if c.provider == "" && c.model == "" {
		if c.kind == "check" {
			return nil, errors.New("auth checks require --provider <provider> or --model <model>")
		}
		return nil, errors.New("credential printing requires --provider <provider> or --model <model>")
	}
	return c, nil
}

// newSignIns builds the subscription sign-ins (tests point them at fakes).
var newSignIns = func(env config.Env, reg *models.Registry) *auth.Set {
	return auth.New(auth.Config{Getenv: env.Get, Copilot: auth.CopilotEndpoints{ModelIDs: providerModelIDs(reg, "github-copilot")}})
}

// providerModelIDs lists the catalog's model ids of provider (Copilot
// enables them for the account after sign-in, as the original does).
func providerModelIDs(reg *models.Registry, provider string) []string {
	var ids []string
	for _, m := range reg.All() {
		if m.Provider == provider {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// noBrowser says the browser is likely on another machine (SSH, or a
// Linux session without a display): sign-ins then offer the paste-the-code
// or device code method first.
func noBrowser(env config.Env) bool {
	t := env.Terminal
	return t.SSH || (runtime.GOOS == "linux" && !t.X11 && !t.Wayland && !t.WSL)
}

// openPage opens a sign-in page ($BROWSER, else the desktop's opener);
// tests replace it.
var openPage = browser.Open

// browser is how /login opens its pages: only in the terminal UI (a
// person at this machine's terminal) with a browser to reach; print,
// JSON and RPC modes and remote sessions only print them.
func (l *launch) browser() func(page string) error {
	if l.mode != modeTUI || !isTTY(l.stdin) || noBrowser(l.env) {
		return nil
	}
	b := l.env.Terminal.Browser
	return func(page string) error { return openPage(b, page) }
}

// runAuth implements `relay auth`. Exit codes: check 0 ready, 1 not
// ready, 2 invalid; the printing commands 0 or 1.
func runAuth(ctx context.Context, args []string, env config.Env, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || hasHelpFlag(args) {
		fmt.Fprint(stdout, authUsage)
		return 0
	}
	c, err := parseAuthCmd(args)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	agentDir, err := env.AgentDir()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	reg, cfgErr := models.Load(agentDir, env.Get)
	signIns := newSignIns(env, reg)
	reg.SetOAuth(signIns.OAuth, signIns.IDs()...)
	ctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	provider, err := authProvider(reg, c)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if c.kind == "check" {
		return authCheck(ctx, reg, cfgErr, provider, c, stdout, stderr)
	}
	cred, err := printCredential(ctx, reg, provider, c)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, cred)
	return 0
}

func hasHelpFlag(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// authProvider is the provider of --provider, or of the --model pattern.
func authProvider(reg *models.Registry, c *authCmd) (string, error) {
	if c.model == "" {
		return c.provider, nil
	}
	m, _, err := reg.Resolve(c.model, c.provider)
	if err != nil {
		return "", err
	}
	return m.Provider, nil
}

// knownProvider reports whether relay has models or credentials
// configuration for provider.
func knownProvider(reg *models.Registry, provider string) bool {
	if _, ok := models.Provider(provider); ok {
		return true
	}
	for _, m := range reg.All() {
		if m.Provider == provider {
			return true
		}
	}
	return reg.AuthSource(provider) != ""
}

type authCheckResult struct {
	Status     string `json:"status"`
	Provider   string `json:"provider"`
	Reason     string `json:"reason,omitempty"`
	AuthType   string `json:"authType,omitempty"`
	Credential string `json:"credential,omitempty"`
}

func authCheck(ctx context.Context, reg *models.Registry, cfgErr error, provider string, c *authCmd, stdout, stderr io.Writer) int {
	r := authCheckResult{Provider: provider}
	stored, serr := storedCredential(reg, provider)
	switch {
	case cfgErr != nil || serr != nil:
		r.Status, r.Reason = "invalid", "invalid_state"
		fmt.Fprintln(stderr, "Error:", errors.Join(cfgErr, serr))
	case !knownProvider(reg, provider):
		r.Status, r.Reason = "not_ready", "provider_not_found"
	case reg.AuthSource(provider) == "":
		r.Status, r.Reason = "not_ready", "credentials_not_configured"
	default:
		r.Status, r.AuthType = "ready", "api_key"
		if stored != nil && stored.Type == "oauth" {
			r.AuthType = "oauth"
		}
		if !c.noRefresh || c.credentials {
			minValid := models.RefreshMargin
			if c.noRefresh {
				minValid = -1 << 62 // never refresh: report what is stored
			}
			v, err := resolveCredential(ctx, reg, provider, stored, minValid)
			var se *models.SignInError
			switch {
			case errors.As(err, &se):
				r.Status, r.Reason, r.AuthType = "not_ready", "credential_not_available", ""
				fmt.Fprintln(stderr, "Error:", err)
			case err != nil:
				r.Status, r.Reason, r.AuthType = "invalid", "invalid_state", ""
				fmt.Fprintln(stderr, "Error:", err)
			case c.credentials:
				r.Credential = v
			}
		}
	}
	if c.json {
		b, _ := json.Marshal(r)
		fmt.Fprintln(stdout, string(b))
	} else if c.credentials && r.Status == "ready" {
		fmt.Fprintln(stdout, r.Credential)
	} else {
		fmt.Fprintln(stdout, r.Status)
	}
	switch r.Status {
	case "ready":
		return 0
	case "not_ready":
		return 1
	}
	return 2
}

func storedCredential(reg *models.Registry, provider string) (*models.Credential, error) {
	if reg.Auth() == nil {
		return nil, nil
	}
	return reg.Auth().Get(provider)
}

// resolveCredential is the key or token a request for provider would
// carry (OAuth tokens renewed when they expire within minValid).
func resolveCredential(ctx context.Context, reg *models.Registry, provider string, stored *models.Credential, minValid time.Duration) (string, error) {
	if stored != nil && stored.Type == "oauth" {
		use, err := reg.OAuthUse(ctx, provider, minValid)
		return use.APIKey, err
	}
	a, err := reg.ResolveAuthSource(ctx, &llm.Model{Provider: provider}, "")
	if err != nil {
		return "", err
	}
	if a.APIKey != "" && a.Source != models.SourceAmbient {
		return a.APIKey, nil
	}
	for k, v := range a.Headers {
		if strings.EqualFold(k, "authorization") {
			if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
				return strings.TrimSpace(tok), nil
			}
		}
	}
	return "", nil
}

func printCredential(ctx context.Context, reg *models.Registry, provider string, c *authCmd) (string, error) {
	if !knownProvider(reg, provider) {
		return "", fmt.Errorf("unknown provider %q. Use --list-models to see available providers.", provider)
	}
	stored, err := storedCredential(reg, provider)
	if err != nil {
		return "", err
	}
	oauth := stored != nil && stored.Type == "oauth"
	switch {
	case c.kind == "print-api-key" && oauth:
		return "", fmt.Errorf("provider %q is configured with OAuth, not an API key", provider)
	case c.kind == "print-bearer-token" && !oauth:
		return "", fmt.Errorf("provider %q is not configured with an OAuth bearer token", provider)
	}
	minValid := models.RefreshMargin
	if c.kind == "print-bearer-token" {
		minValid = c.minExpiry
	}
	v, err := resolveCredential(ctx, reg, provider, stored, minValid)
	if err != nil {
		return "", err
	}
	if v == "" {
		if c.kind == "print-api-key" {
			return "", errors.New("no usable API key is configured")
		}
		return "", errors.New("no usable OAuth bearer token is configured")
	}
	return v, nil
}
