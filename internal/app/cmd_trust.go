package app

import (
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

// TrustInfo is the project trust state shown by /trust.
type TrustInfo struct {
	Cwd string
	// Needed is false when the project has no resources that wait for
	// trust (it then counts as trusted).
	Needed bool
	// Saved is the nearest trust.json decision for the cwd or an ancestor.
	Saved *settings.TrustEntry
	// Default is the agent directory's defaultProjectTrust.
	Default settings.ProjectTrust
	// StoreErr reports an unreadable trust.json.
	StoreErr error
	// Choices are the answers SetTrust accepts, by index.
	Choices []settings.TrustOption
}

// Format renders the state and the numbered choices.
func (t TrustInfo) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Project trust for %s\n", t.Cwd)
	if !t.Needed {
		b.WriteString("This project has no .relay resources (or .agents/skills) that need trust; it counts as trusted.\n")
	}
	switch {
	case t.StoreErr != nil:
		fmt.Fprintf(&b, "Saved decision: unreadable trust.json (%v)\n", t.StoreErr)
	case t.Saved != nil:
		verdict := "trusted"
		if !t.Saved.Trusted {
			verdict = "not trusted"
		}
		where := ""
		if t.Saved.Dir != config.Canonical(t.Cwd) {
			where = " (saved for " + t.Saved.Dir + ")"
		}
		fmt.Fprintf(&b, "Saved decision: %s%s\n", verdict, where)
	default:
		fmt.Fprintf(&b, "Saved decision: none; defaultProjectTrust is %q\n", string(t.Default))
	}
	b.WriteString("\nChoices:\n")
	for i, c := range t.Choices {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, c.Label)
	}
	b.WriteString("\nChanges apply to the next start of relay in this directory.")
	return b.String()
}

// TrustState reads the current trust decision for a working directory.
func TrustState(workDir, agentDir string) TrustInfo {
	cwd := config.Canonical(workDir)
	t := TrustInfo{Cwd: cwd, Needed: settings.NeedsTrust(cwd), Default: settings.TrustAsk}
	if agentDir != "" {
		st, _ := settings.Load(settings.LoadOptions{AgentDir: agentDir})
		if st != nil && st.DefaultProjectTrust != "" {
			t.Default = st.DefaultProjectTrust
		}
		e, found, err := settings.NewTrustStore(agentDir).Lookup(cwd)
		switch {
		case err != nil:
			t.StoreErr = err
		case found:
			t.Saved = &e
		}
	}
	t.Choices = settings.TrustOptions(cwd, false)
	if t.Saved != nil {
		t.Choices = append(t.Choices, settings.TrustOption{
			Label:   "Forget the saved decision (" + t.Saved.Dir + ")",
			Trusted: false,
			Updates: []settings.TrustUpdate{{Dir: t.Saved.Dir}},
		})
	}
	return t
}

// SetTrust applies TrustState().Choices[choice] to trust.json and returns
// a confirmation. The running session keeps what it loaded at start.
func (r *Runtime) setTrust(choice int) (string, error) {
	if r.cfg.AgentDir == "" {
		return "", fmt.Errorf("trust: no agent directory")
	}
	t := TrustState(r.cfg.Cwd, r.cfg.AgentDir)
	if choice < 0 || choice >= len(t.Choices) {
		return "", fmt.Errorf("trust: choice %d out of range (1-%d)", choice+1, len(t.Choices))
	}
	c := t.Choices[choice]
	if err := settings.NewTrustStore(r.cfg.AgentDir).Set(c.Updates...); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return "Saved: " + c.Label + ". Restart relay to load or unload this project's resources.", nil
}
