package bugreport

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

// WriteDebugLog implements /debug: it writes <agentDir>/relay-debug.log
// with what the next request would carry (model, system prompt, tool
// declarations and a one-line summary per message) and returns the path.
// Credentials are never resolved, so none can appear in it.
func (f *Feature) WriteDebugLog() (string, error) {
	if f.o.AgentDir == "" {
		return "", fmt.Errorf("debug: no agent directory")
	}
	path := config.Agent{Dir: f.o.AgentDir}.DebugLog()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("debug: %w", err)
	}
	if err := os.WriteFile(path, []byte(f.debugReport()), 0o600); err != nil {
		return "", fmt.Errorf("debug: %w", err)
	}
	return path, nil
}

// debugReport is the text /debug writes.
func (f *Feature) debugReport() string {
	var b strings.Builder
	s := f.rt.Session()
	fmt.Fprintf(&b, "relay debug log, %s\n", f.o.now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "relay %s, %s, %s/%s\n", f.o.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "cwd: %s\nsession: %s (%s)\n", f.o.Cwd, s.SessionFile(), s.SessionID())
	model := f.rt.State().Model
	if model != nil {
		fmt.Fprintf(&b, "model: %s/%s (api %s, base URL %s, context window %d, max tokens %d)\n",
			model.Provider, model.ID, model.API, redactURL(model.BaseURL), model.ContextWindow, model.MaxTokens)
	} else {
		b.WriteString("model: none selected\n")
	}
	st := f.rt.State()
	fmt.Fprintf(&b, "thinking level: %s\nstreaming: %v, compacting: %v\n", f.rt.State().ThinkingLevel, st.IsStreaming, st.IsCompacting)

	next := f.rt.NextRequest()
	fmt.Fprintf(&b, "\n=== System prompt (%d chars) ===\n%s\n", len(next.SystemPrompt), next.SystemPrompt)
	fmt.Fprintf(&b, "\n=== Tools (%d) ===\n", len(next.Tools))
	for _, t := range next.Tools {
		fmt.Fprintf(&b, "- %s: %s\n  parameters: %s\n", t.Name, oneLine(t.Description, 300), string(t.Parameters))
	}

	var visible []llm.Message
	for _, m := range next.Messages {
		if a, ok := m.(*llm.AssistantMessage); ok && (a.StopReason == llm.StopError || a.StopReason == llm.StopAborted) {
			continue
		}
		visible = append(visible, m)
	}
	modelMsgs := llm.ToModelMessages(visible)
	total := 0
	for _, m := range modelMsgs {
		total += compaction.EstimateMessage(m)
	}
	fmt.Fprintf(&b, "\n=== Messages (%d sent to the model, ~%d tokens estimated; %d on the branch) ===\n", len(modelMsgs), total, len(next.Messages))
	for i, m := range modelMsgs {
		fmt.Fprintf(&b, "%4d %-10s ~%-6d %s\n", i, m.MessageRole(), compaction.EstimateMessage(m), summarizeMessage(m))
	}
	return b.String()
}

// summarizeMessage is a one-line description of a model message.
func summarizeMessage(m llm.Message) string {
	switch v := m.(type) {
	case *llm.UserMessage:
		return oneLine(v.Content.PlainText(), 160) + imagesNote(v.Content.AsBlocks())
	case *llm.AssistantMessage:
		var parts []string
		if t := v.Text(); t != "" {
			parts = append(parts, oneLine(t, 120))
		}
		for _, c := range v.ToolCalls() {
			parts = append(parts, "call "+c.Name+" "+oneLine(string(c.Arguments), 80))
		}
		for _, bl := range v.Content {
			if _, ok := bl.(*llm.ThinkingContent); ok {
				parts = append(parts, "[thinking]")
				break
			}
		}
		return fmt.Sprintf("%s [%s, stop %s]", strings.Join(parts, " | "), v.Provider+"/"+v.Model, v.StopReason)
	case *llm.ToolResultMessage:
		status := "ok"
		if v.IsError {
			status = "error"
		}
		return fmt.Sprintf("%s (%s) %s%s", v.ToolName, status, oneLine(v.Content.PlainText(), 120), imagesNote(v.Content))
	}
	return ""
}

func imagesNote(bs llm.Blocks) string {
	n := 0
	for _, b := range bs {
		if _, ok := b.(*llm.ImageContent); ok {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" [%d image(s)]", n)
}

// oneLine collapses whitespace and cuts s to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > max {
		return string(rs[:max]) + "…"
	}
	return s
}
