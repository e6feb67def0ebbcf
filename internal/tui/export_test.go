package tui

import "github.com/relay-agent/relay/internal/agent"

// EventsMsg lets external tests feed a batch of events synchronously.
func EventsMsg(evs ...agent.Event) any { return eventsMsg{evs} }
