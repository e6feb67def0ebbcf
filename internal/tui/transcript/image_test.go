package transcript

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
)

func testImage(t *testing.T, w, h int, jpg bool) *llm.ImageContent {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		im.Set(x, x%h, color.RGBA{255, 0, 0, 255})
	}
	var buf bytes.Buffer
	mime := "image/png"
	if jpg {
		mime = "image/jpeg"
		if err := jpeg.Encode(&buf, im, nil); err != nil {
			t.Fatal(err)
		}
	} else if err := png.Encode(&buf, im); err != nil {
		t.Fatal(err)
	}
	return &llm.ImageContent{Data: base64.StdEncoding.EncodeToString(buf.Bytes()), MimeType: mime}
}

func TestImageLines(t *testing.T) {
	png := testImage(t, 400, 200, false)
	for _, tc := range []struct {
		name     string
		img      *llm.ImageContent
		o        ImageOptions
		rows     int
		contains string
	}{
		{"kitty", png, ImageOptions{Protocol: ProtocolKitty, WidthCells: 40}, 10, "\x1b_Ga=T,f=100,q=2,C=1,c=40,r=10,"},
		{"iterm2", png, ImageOptions{Protocol: ProtocolITerm2, WidthCells: 40}, 10, "\x1b]1337;File=inline=1;"},
		{"narrow terminal", png, ImageOptions{Protocol: ProtocolKitty, WidthCells: 60}, 5, "c=18,r=5,"},
		{"jpeg re-encoded for kitty", testImage(t, 160, 160, true), ImageOptions{Protocol: ProtocolKitty, WidthCells: 20}, 10, "f=100"},
		{"no protocol", png, ImageOptions{WidthCells: 40}, 0, ""},
		{"bad data", &llm.ImageContent{Data: "!!!", MimeType: "image/png"}, ImageOptions{Protocol: ProtocolKitty}, 0, ""},
	} {
		width := 100
		if tc.name == "narrow terminal" {
			width = 20
		}
		lines := imageLines(tc.img, tc.o, width)
		if len(lines) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(lines), tc.rows)
			continue
		}
		if tc.rows == 0 {
			continue
		}
		if !strings.Contains(lines[0], tc.contains) {
			t.Errorf("%s: first line %.120q lacks %q", tc.name, lines[0], tc.contains)
		}
		for i, l := range lines {
			// Zero width: the renderer's line arithmetic stays right.
			if w := ansi.StringWidth(l); w != 0 {
				t.Errorf("%s: line %d has width %d", tc.name, i, w)
			}
		}
	}
}

func TestImagesOnlyInCommittedLines(t *testing.T) {
	tr := newT()
	tr.SetImages(ImageOptions{Protocol: ProtocolKitty, WidthCells: 30})
	img := testImage(t, 300, 150, false)
	tr.AddMessage(&llm.UserMessage{Content: llm.Content{Blocks: llm.Blocks{&llm.TextContent{Text: "look"}, img}}})
	tr.Apply(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "t1", ToolName: "read"})
	tr.Apply(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "t1", ToolName: "read",
		Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "Read image file [image/png]"}, img}}})
	// The fullscreen view and the live area show the marker only.
	for _, l := range append(tr.View(80, 40), tr.Live(80)...) {
		if strings.Contains(l, "\x1b_G") {
			t.Fatalf("escape in a redrawn line: %q", l)
		}
	}
	out := strings.Join(tr.TakeCommitted(80), "\n")
	if n := strings.Count(out, "\x1b_Ga=T"); n != 2 {
		t.Fatalf("%d images in the committed lines, want 2 (user message and read result)", n)
	}
	if !strings.Contains(ansi.Strip(out), "[image image/png]") {
		t.Error("marker missing")
	}
}

func TestKittyPlaceholders(t *testing.T) {
	tr := newT()
	tr.SetImages(ImageOptions{Protocol: ProtocolKitty, WidthCells: 20, Placeholders: true})
	img := testImage(t, 200, 200, false) // 20 cols x 10 rows
	tr.AddMessage(&llm.UserMessage{Content: llm.Content{Blocks: llm.Blocks{&llm.TextContent{Text: "look"}, img}}})
	cmds := tr.TakeImageCommands()
	if !strings.Contains(cmds, "\x1b_Ga=t,f=100,i=16,q=2,") || !strings.Contains(cmds, "\x1b_Ga=p,U=1,i=16,c=20,r=10,q=2\x1b\\") {
		t.Fatalf("transmission %.200q", cmds)
	}
	if tr.TakeImageCommands() != "" {
		t.Fatal("image sent twice")
	}
	for i := 0; i < 30; i++ {
		tr.AddNotice(fmt.Sprintf("line %d", i))
	}
	rowOf := func(l string) int {
		rs := []rune(ansi.Strip(l))
		for i, r := range rs {
			if r == placeholder && i+1 < len(rs) {
				for k, d := range rowDiacritics {
					if rs[i+1] == d {
						return k
					}
				}
			}
		}
		return -1
	}
	// Scrolled so the image is cut by the top edge: the visible rows carry
	// their own row numbers, so the terminal draws the right slices.
	tr.View(60, 12)
	tr.Top()
	tr.ScrollBy(7)
	view := tr.View(60, 12)
	var rows []int
	for _, l := range view {
		if r := rowOf(l); r >= 0 {
			rows = append(rows, r)
			if !strings.Contains(l, "\x1b[38;5;16m") {
				t.Errorf("row without the image id colour: %q", l)
			}
			if w := ansi.StringWidth(l); w != 20 {
				t.Errorf("row width %d", w)
			}
		}
	}
	if len(rows) == 0 || rows[len(rows)-1] != 9 || rows[0] == 0 {
		t.Fatalf("visible image rows %v (view:\n%s)", rows, strings.Join(view, "\n"))
	}
	for i := 1; i < len(rows); i++ {
		if rows[i] != rows[i-1]+1 {
			t.Fatalf("rows out of order: %v", rows)
		}
	}
	tr.Clear()
	if got := tr.TakeImageCommands(); got != "\x1b_Ga=d,d=I,i=16,q=2\x1b\\" {
		t.Fatalf("clear: %q", got)
	}
}
