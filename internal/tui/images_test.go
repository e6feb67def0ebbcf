package tui_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/transcript"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func pngImage(t *testing.T) *llm.ImageContent {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 160, 80))); err != nil {
		t.Fatal(err)
	}
	return &llm.ImageContent{Data: base64.StdEncoding.EncodeToString(buf.Bytes()), MimeType: "image/png"}
}

func imageSession(t *testing.T) *tuitest.Fake {
	f := tuitest.NewFake()
	f.Messages = []llm.Message{&llm.UserMessage{Content: llm.Content{Blocks: llm.Blocks{&llm.TextContent{Text: "see this"}, pngImage(t)}}}}
	return f
}

// Fullscreen kitty: placeholders in the frame; the normal screen at exit
// gets the image itself after the placeholders' image is deleted.
func TestFullscreenKittyImages(t *testing.T) {
	o := opts()
	o.Fullscreen = true
	o.Images = transcript.ImageOptions{Protocol: transcript.ProtocolKitty, WidthCells: 20}
	m := tui.New(context.Background(), imageSession(t), o)
	d := tuitest.NewDriver(m, 80, 24)
	if fr := d.Frame(); !strings.ContainsRune(fr, '\U0010EEEE') || !strings.Contains(fr, "[image image/png]") {
		t.Fatalf("no placeholder cells:\n%s", fr)
	}
	out := m.ExitOutput()
	del, draw := strings.Index(out, "\x1b_Ga=d,d=I,i=16"), strings.Index(out, "\x1b_Ga=T,f=100")
	if del < 0 || draw < del || strings.ContainsRune(out, '\U0010EEEE') {
		t.Fatalf("exit output %.300q", out)
	}
}

// Fullscreen iTerm2 cannot survive redraws: markers only.
func TestFullscreenITerm2ShowsMarker(t *testing.T) {
	o := opts()
	o.Fullscreen = true
	o.Images = transcript.ImageOptions{Protocol: transcript.ProtocolITerm2, WidthCells: 20}
	m := tui.New(context.Background(), imageSession(t), o)
	d := tuitest.NewDriver(m, 80, 24)
	v := m.View().Content
	if strings.Contains(v, "1337;File") || !strings.Contains(d.Frame(), "[image image/png]") {
		t.Fatalf("frame %.300q", v)
	}
}

// Regular mode prints the image into the scrollback once.
func TestRegularModePrintsImages(t *testing.T) {
	for _, proto := range []string{transcript.ProtocolKitty, transcript.ProtocolITerm2} {
		o := opts()
		o.Images = transcript.ImageOptions{Protocol: proto, WidthCells: 20}
		d := tuitest.NewDriver(tui.New(context.Background(), imageSession(t), o), 80, 24)
		all := strings.Join(d.Printed, "\n")
		want := map[string]string{transcript.ProtocolKitty: "\x1b_Ga=T,", transcript.ProtocolITerm2: "\x1b]1337;File=inline=1;"}[proto]
		if strings.Count(all, want) != 1 {
			t.Errorf("%s: printed %.300q", proto, all)
		}
	}
}

// Images given with the first prompt (@file on the command line) and
// pasted ones reach the runtime and are drawn in the user message.
func TestPromptImagesAreDrawn(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Images = transcript.ImageOptions{Protocol: transcript.ProtocolKitty, WidthCells: 20}
	o.InitialPrompt = "what is this"
	o.InitialImages = []llm.ImageContent{*pngImage(t)}
	d := start(t, f, o, 80, 24)
	printedImages := func() int { return strings.Count(strings.Join(d.Printed, "\n"), "\x1b_Ga=T,") }
	// The initial prompt is submitted off the update loop: wait for it
	// rather than for one quiet period, which a loaded machine outlasts.
	eventually(t, d, "initial prompt with its image", func(string) bool {
		return f.LastImages() == 1 && hasCall(f, "Prompt what is this") && printedImages() >= 1
	})
	if n := printedImages(); n != 1 {
		t.Fatalf("%d images printed", n)
	}
	img := pngImage(t)
	d.Send(tui.ClipboardImageMsg(img.Data, img.MimeType))
	d.Press("enter")
	eventually(t, d, "pasted image sent and drawn", func(string) bool {
		prompts := 0
		for _, c := range f.CallLog() {
			if strings.HasPrefix(c, "Prompt ") {
				prompts++
			}
		}
		return prompts == 2 && f.LastImages() == 1 && printedImages() >= 2
	})
	if n := printedImages(); n != 2 {
		t.Fatalf("%d images printed after paste", n)
	}
}
