package tui_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func evs(e ...agent.Event) tea.Msg { return tui.EventsMsg(e...) }

func bigFake(n int) *tuitest.Fake {
	f := tuitest.NewFake()
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			f.Messages = append(f.Messages, &llm.UserMessage{Content: llm.StringContent(fmt.Sprintf("question %d about the code", i))})
		} else {
			f.Messages = append(f.Messages, &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{
				Text: fmt.Sprintf("Answer **%d**: use `go test`.\n\n```go\nfunc f() int { return %d }\n```\n\n- one\n- two", i, i)}}})
		}
	}
	return f
}

// BenchmarkKeystroke10k is one typed character (Update + View) with a
// 10,000-message transcript on screen.
func BenchmarkKeystroke10k(b *testing.B) {
	for _, mode := range []string{"fullscreen", "regular"} {
		b.Run(mode, func(b *testing.B) {
			o := opts()
			o.Fullscreen = mode == "fullscreen"
			m := tui.New(context.Background(), bigFake(10000), o)
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			m.View()
			text := []rune("fix the flaky test in the parser package ")
			clear := tuitest.Key("ctrl+c")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%80 == 79 { // keep the prompt a realistic length
					m.Update(clear)
				}
				r := text[i%len(text)]
				m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				m.View()
			}
		})
	}
}

// BenchmarkOpen10k is building the UI for a resumed 10,000-message
// session and drawing the first frame.
func BenchmarkOpen10k(b *testing.B) {
	f := bigFake(10000)
	o := opts()
	o.Fullscreen = true
	for i := 0; i < b.N; i++ {
		m := tui.New(context.Background(), f, o)
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.View()
	}
}

// TestStreamingMemory streams 10 MB of answers through the UI and reports
// the live heap afterwards (the target is < 100 MB for the process).
func TestStreamingMemory(t *testing.T) {
	if os.Getenv("RELAY_TUI_MEMTEST") == "" {
		t.Skip("set RELAY_TUI_MEMTEST=1 to stream 10 MB through the UI (slow)")
	}
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), tuitest.NewFake(), o)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	para := strings.Repeat("streamed words of an answer with `code` and **bold** ", 4) + "\n\n"
	total := 0
	for msg := 0; total < 10<<20; msg++ {
		m.Update(evs(agent.Event{Type: agent.MessageStart, Message: &llm.AssistantMessage{}}))
		var sb strings.Builder
		for j := 0; j < 200; j++ {
			sb.WriteString(para)
			total += len(para)
			m.Update(evs(agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventTextDelta, Delta: para}}))
			if j%10 == 0 {
				m.View()
			}
		}
		m.Update(evs(agent.Event{Type: agent.MessageEnd, Message: &llm.AssistantMessage{StopReason: llm.StopStop,
			Content: llm.Blocks{&llm.TextContent{Text: sb.String()}}}}))
		m.View()
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(m)
	t.Logf("streamed %d MB; heap in use %d MB, sys %d MB", total>>20, ms.HeapInuse>>20, ms.Sys>>20)
	if ms.HeapInuse > 100<<20 {
		t.Errorf("heap %d MB after streaming 10 MB", ms.HeapInuse>>20)
	}
}

// BenchmarkStartup is building the UI for a new session and drawing the
// first frame (the in-process part of launch-to-prompt).
func BenchmarkStartup(b *testing.B) {
	o := opts()
	o.Fullscreen = true
	for i := 0; i < b.N; i++ {
		m := tui.New(context.Background(), tuitest.NewFake(), o)
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.View()
	}
}
