package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/export"
)

// SessionInfoText is the /session report: file, id, name, message counts,
// token totals, cost and context usage, as plain text.
func (r *Runtime) sessionInfoText() string {
	st := Stats(r)
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%s %s\n", label, value) }
	b.WriteString("Session Info\n\n")
	file := st.SessionFile
	if file == "" || !r.Session().IsPersisted() {
		file = "(not saved: this session is in memory only)"
	}
	line("File:", file)
	line("ID:", st.SessionID)
	if name := r.Session().Name(); name != "" {
		line("Name:", name)
	}
	b.WriteString("\nMessages\n")
	line("User:", strconv.Itoa(st.UserMessages))
	line("Assistant:", strconv.Itoa(st.AssistantMessages))
	line("Tool Calls:", strconv.Itoa(st.ToolCalls))
	line("Tool Results:", strconv.Itoa(st.ToolResults))
	line("Total:", strconv.Itoa(st.TotalMessages))
	b.WriteString("\nTokens\n")
	line("Input:", export.Thousands(st.Tokens.Input))
	line("Output:", export.Thousands(st.Tokens.Output))
	if st.Tokens.CacheRead > 0 {
		line("Cache Read:", export.Thousands(st.Tokens.CacheRead))
	}
	if st.Tokens.CacheWrite > 0 {
		line("Cache Write:", export.Thousands(st.Tokens.CacheWrite))
	}
	line("Total:", export.Thousands(st.Tokens.Total))
	if st.Cost > 0 {
		b.WriteString("\nCost\n")
		line("Total:", fmt.Sprintf("$%.4f", st.Cost))
	}
	if cu := st.ContextUsage; cu != nil {
		b.WriteString("\nContext\n")
		if cu.Tokens != nil && cu.Percent != nil {
			line("Used:", fmt.Sprintf("%s / %s tokens (%.1f%%)", export.Thousands(*cu.Tokens), export.Thousands(cu.ContextWindow), *cu.Percent))
		} else {
			line("Used:", fmt.Sprintf("unknown until the next response / %s tokens", export.Thousands(cu.ContextWindow)))
		}
	}
	if m := r.currentModel(); m != nil {
		b.WriteString("\nModel\n")
		line("Model:", m.Provider+"/"+m.ID)
		line("Thinking:", string(r.thinkingLevel()))
	}
	// Features' own lines (cache warming's next decision, ...).
	if details := r.hooks.RunStatusDetails(context.Background()); len(details) > 0 {
		b.WriteString("\n")
		for _, d := range details {
			b.WriteString(d + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// NameCommand implements /name: with an argument it sets the session
// name, without one it shows the current name.
func (r *Runtime) nameCommand(arg string) (string, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		if n := r.Session().Name(); n != "" {
			return "Session name: " + n, nil
		}
		return "This session has no name. Use /name <name> to set one.", nil
	}
	if err := r.SetSessionName(arg); err != nil {
		return "", fmt.Errorf("set session name: %w", err)
	}
	return "Session name set: " + r.Session().Name(), nil
}
