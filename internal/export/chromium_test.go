package export

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// chromiumPath finds a headless-capable Chromium, or "".
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// testImage is a small PNG with a colour gradient, as base64.
func testImage(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 96; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / 95), uint8(y * 255 / 63), 160, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// richSession has two branches, thinking, tool calls and results (one
// failing), an image, a compaction-free system prompt and a label.
func richSession(t *testing.T, dir string) *session.Manager {
	t.Helper()
	s, err := session.Create("/work/project", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := "You are relay, a coding agent."
	must := func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	must(s.AppendModelChange("anthropic", "claude-sonnet"))
	must(s.AppendMessage(&llm.SystemMessage{Content: llm.StringContent(""), Sections: llm.Sections{{Name: "preamble", Text: &text}},
		ToolsAdded: []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}, Timestamp: 1}))
	u1 := must(s.AppendMessage(&llm.UserMessage{Content: llm.BlockContent(
		&llm.TextContent{Text: "Why does the build fail? Screenshot attached."},
		&llm.ImageContent{Data: testImage(t), MimeType: "image/png"}), Timestamp: 2}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{
		&llm.ThinkingContent{Thinking: "The screenshot shows a compile error in main.go; read it first."},
		&llm.TextContent{Text: "Let me read main.go."},
		&llm.ToolCall{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go","offset":1,"limit":40}`)}},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet", StopReason: llm.StopToolUse, Timestamp: 3,
		Usage: llm.Usage{Input: 2100, Output: 80, Cost: llm.Cost{Total: 0.0071}}}))
	must(s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "call_1", ToolName: "read",
		Content: llm.Blocks{&llm.TextContent{Text: "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"}}, Timestamp: 4}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{
		&llm.ToolCall{ID: "call_2", Name: "bash", Arguments: json.RawMessage(`{"command":"go build ./..."}`)}},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet", StopReason: llm.StopToolUse, Timestamp: 5}))
	must(s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "call_2", ToolName: "bash", IsError: true,
		Content: llm.Blocks{&llm.TextContent{Text: "./main.go:4:2: undefined: fmt\nexit status 1"}}, Timestamp: 6}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{
		Text: "The file uses fmt without importing it. Add `import \"fmt\"` after the package clause."}},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet", StopReason: llm.StopStop, Timestamp: 7}))
	// A second branch from the first prompt.
	if err := s.SetLeaf(u1); err != nil {
		t.Fatal(err)
	}
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "An alternative answer on another branch."}},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet", StopReason: llm.StopStop, Timestamp: 8}))
	must(s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("try again"), Timestamp: 9}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{}, API: "anthropic-messages", Provider: "anthropic",
		Model: "claude-sonnet", StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded", Timestamp: 10}))
	must(s.AppendLabel(u1, "start"))
	return s
}

// TestHTMLRendersInChromium screenshots an export in headless Chromium, in
// the light and the dark colour scheme, and checks the page is not blank: a
// good share of the pixels differ from the background and many distinct
// colours appear. Set RELAY_EXPORT_SCREENSHOT=<prefix> to keep the
// screenshots as <prefix>-light.png and <prefix>-dark.png.
func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	s := richSession(t, dir)
	defer s.Close()
	page, err := Session(s, filepath.Join(dir, "export.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []struct {
		name  string
		flags []string
	}{{"light", nil}, {"dark", []string{"--force-dark-mode"}}} {
		t.Run(scheme.name, func(t *testing.T) {
			shot := filepath.Join(dir, scheme.name+".png")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir=" + filepath.Join(dir, "profile-"+scheme.name), "--screenshot=" + shot, "--window-size=1200,2000"},
				scheme.flags...)
			cmd := exec.CommandContext(ctx, bin, append(args, "file://"+filepath.ToSlash(page))...)
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, out)
			}
			data, err := os.ReadFile(shot)
			if err != nil {
				t.Fatalf("no screenshot: %v\n%s", err, out)
			}
			if keep := os.Getenv("RELAY_EXPORT_SCREENSHOT"); keep != "" {
				os.WriteFile(keep+"-"+scheme.name+".png", data, 0o644)
			}
			checkScreenshot(t, data)
		})
	}
}

func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}]++
		}
	}
	var bg color.RGBA
	for c, n := range counts {
		if n > counts[bg] {
			bg = c
		}
	}
	total := b.Dx() * b.Dy()
	share := 1 - float64(counts[bg])/float64(total)
	// Coarse colours (4 bits per channel) that cover at least 50 pixels:
	// anti-aliasing alone does not make a page colourful.
	coarse := map[[3]uint8]int{}
	for c, n := range counts {
		coarse[[3]uint8{c.R >> 4, c.G >> 4, c.B >> 4}] += n
	}
	distinct := 0
	for _, n := range coarse {
		if n >= 50 {
			distinct++
		}
	}
	t.Logf("screenshot %dx%d: background %v, %.1f%% non-background, %d distinct colours", b.Dx(), b.Dy(), bg, share*100, distinct)
	if share < 0.15 {
		t.Errorf("only %.1f%% of the screenshot differs from the background: the page looks blank", share*100)
	}
	if distinct < 8 {
		t.Errorf("only %d distinct colours: entries, code and the image should show more", distinct)
	}
}
