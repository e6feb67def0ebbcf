package tui

import (
	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
)

// EventsMsg lets external tests feed a batch of events synchronously.
func EventsMsg(evs ...agent.Event) any { return eventsMsg{evs} }

// ClipboardImageMsg builds the message a clipboard image read produces.
func ClipboardImageMsg(data, mime string) any {
	return clipboardImageMsg{img: &llm.ImageContent{Data: data, MimeType: mime}}
}
