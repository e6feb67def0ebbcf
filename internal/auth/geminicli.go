package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// GeminiCLIEndpoints are Google Gemini CLI sign-in's servers (zero = real).
type GeminiCLIEndpoints struct {
	Authorize    string
	Token        string
	CodeAssist   string
	CallbackPort int // 0 = the registered 8085; -1 = any (tests)
	// PollInterval and PollAttempts bound the wait for onboarding.
	PollInterval time.Duration
	PollAttempts int
}

// The Gemini CLI's published installed-app client (as Gemini CLI and the
// original's lineage use it).
var geminiCLIDefaults = GeminiCLIEndpoints{
	Authorize:    "https://accounts.google.com/o/oauth2/v2/auth",
	Token:        "https://oauth2.googleapis.com/token",
	CodeAssist:   "https://cloudcode-pa.googleapis.com",
	CallbackPort: 8085,
	PollInterval: time.Second,
	PollAttempts: 12,
}

var (
	geminiCLIClientID     = mustB64("NjgxMjU1ODA5Mzk1LW9vOGZ0Mm9wcmRybnA5ZTNhcWY2YXYzaG1kaWIxMzVqLmFwcHMuZ29vZ2xldXNlcmNvbnRlbnQuY29t")
	geminiCLIClientSecret = mustB64("R09DU1BYLTR1SGdNUG0tMW83U2stZ2VWNkN1NWNsWEZzeGw=")
)

func geminiCLIProvider(c *Config) *Provider {
	e := c.GeminiCLI
	fill(&e.Authorize, geminiCLIDefaults.Authorize)
	fill(&e.Token, geminiCLIDefaults.Token)
	fill(&e.CodeAssist, geminiCLIDefaults.CodeAssist)
	if e.PollInterval == 0 {
		e.PollInterval = geminiCLIDefaults.PollInterval
	}
	if e.PollAttempts == 0 {
		e.PollAttempts = geminiCLIDefaults.PollAttempts
	}
	origin := strings.TrimRight(e.CodeAssist, "/")
	return googleProvider(c, googleSpec{
		id: "google-gemini-cli", name: "Google Gemini CLI", label: "Google Gemini CLI",
		authorize: e.Authorize, token: e.Token, port: e.CallbackPort, defaultPort: geminiCLIDefaults.CallbackPort,
		path: "/oauth2callback", scopes: []string{"cloud-platform", "userinfo.email", "userinfo.profile"},
		instructions: "Sign in with the Google account you use for Gemini Code Assist.",
		client:       func(string) (string, string, error) { return geminiCLIClientID, geminiCLIClientSecret, nil },
		discover: func(ctx context.Context, access string) (map[string]string, error) {
			pid, err := discoverGeminiProject(ctx, c, origin, access, e.PollInterval, e.PollAttempts)
			if err != nil {
				return nil, err
			}
			return map[string]string{"projectId": pid, "baseUrl": origin}, nil
		},
		use: projectUse("Gemini CLI"),
	})
}

// discoverGeminiProject finds the Cloud Code Assist project of the
// account: the one loadCodeAssist names; else GOOGLE_CLOUD_PROJECT (or
// GOOGLE_CLOUD_PROJECT_ID) for accounts on a paid tier; else the account
// is onboarded on its default tier (free tier without a project) and the
// long-running operation is polled for the project.
func discoverGeminiProject(ctx context.Context, c *Config, origin, access string, interval time.Duration, attempts int) (string, error) {
	configured := firstNonEmpty(c.Getenv("GOOGLE_CLOUD_PROJECT"), c.Getenv("GOOGLE_CLOUD_PROJECT_ID"))
	hdr := map[string]string{"Authorization": "Bearer " + access}
	meta := map[string]string{"ideType": "IDE_UNSPECIFIED", "platform": "PLATFORM_UNSPECIFIED", "pluginType": "GEMINI"}
	withProject := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		if configured != "" {
			out["duetProject"] = configured
		}
		return out
	}
	load := map[string]any{"metadata": withProject(meta)}
	if configured != "" {
		load["cloudaicompanionProject"] = configured
	}
	st, b, err := postJSON(ctx, c.HTTP, origin+"/v1internal:loadCodeAssist", load, hdr)
	if err != nil {
		return "", wrapNet("Google Gemini CLI project discovery", err)
	}
	if st != http.StatusOK {
		return "", fmt.Errorf("Google Gemini CLI project discovery failed (%d): %s", st, snippet(b))
	}
	var r struct {
		Project     json.RawMessage `json:"cloudaicompanionProject"`
		CurrentTier *struct {
			ID string `json:"id"`
		} `json:"currentTier"`
		AllowedTiers []struct {
			ID        string `json:"id"`
			IsDefault bool   `json:"isDefault"`
		} `json:"allowedTiers"`
	}
	if json.Unmarshal(b, &r) != nil {
		return "", fmt.Errorf("Google Gemini CLI project discovery: invalid answer: %s", snippet(b))
	}
	if p := projectID(r.Project); p != "" {
		return p, nil
	}
	needProject := errors.New("this Google account needs a project: set GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID) and sign in again")
	if r.CurrentTier != nil {
		if configured != "" {
			return configured, nil
		}
		return "", needProject
	}
	tier := "legacy-tier"
	for _, t := range r.AllowedTiers {
		if t.IsDefault && t.ID != "" {
			tier = t.ID
		}
	}
	if tier != "free-tier" && configured == "" {
		return "", needProject
	}
	onboard := map[string]any{"tierId": tier, "metadata": withProject(meta)}
	if configured != "" {
		onboard["cloudaicompanionProject"] = configured
	}
	st, b, err = postJSON(ctx, c.HTTP, origin+"/v1internal:onboardUser", onboard, hdr)
	if err != nil {
		return "", wrapNet("Google Gemini CLI onboarding", err)
	}
	if st != http.StatusOK {
		return "", fmt.Errorf("Google Gemini CLI onboarding failed (%d): %s", st, snippet(b))
	}
	type operation struct {
		Name     string `json:"name"`
		Done     bool   `json:"done"`
		Response struct {
			Project json.RawMessage `json:"cloudaicompanionProject"`
		} `json:"response"`
	}
	var op operation
	if json.Unmarshal(b, &op) != nil {
		return "", fmt.Errorf("Google Gemini CLI onboarding: invalid answer: %s", snippet(b))
	}
	for i := 0; !op.Done && op.Name != "" && i < attempts; i++ {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(interval):
		}
		st, b, err = call(ctx, c.HTTP, "GET", origin+"/v1internal/"+op.Name, nil, hdr)
		if err != nil {
			return "", wrapNet("Google Gemini CLI onboarding", err)
		}
		if st != http.StatusOK {
			return "", fmt.Errorf("Google Gemini CLI onboarding poll failed (%d): %s", st, snippet(b))
		}
		op = operation{}
		if json.Unmarshal(b, &op) != nil {
			return "", fmt.Errorf("Google Gemini CLI onboarding: invalid answer: %s", snippet(b))
		}
	}
	if p := firstNonEmpty(projectID(op.Response.Project), configured); p != "" {
		return p, nil
	}
	return "", errors.New("Google Gemini CLI onboarding returned no project")
}
