package tui

import (
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// ContextMessages is the active branch for drawing the transcript, with
// the custom entries (appendEntry) at their places: the transcript draws
// those an extension renderer draws and skips the others.
func (a *AppRuntime) ContextMessages() []llm.Message {
	p := a.Runtime.Session().BuildSessionProjection()
	out := make([]llm.Message, 0, len(p.Messages))
	for _, pe := range p.Entries {
		out = append(out, pe.Messages...)
		if pe.Source == nil {
			continue
		}
		if c := pe.Source.Custom(); c != nil {
			out = append(out, &transcript.EntryMessage{ID: pe.Source.ID, CustomType: c.CustomType, Data: c.Data})
		}
	}
	return out
}
