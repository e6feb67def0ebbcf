package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

func TestReadText(t *testing.T) {
	env := newEnv(t)
	rd := mustTool(t, "read", env)
	writeFile(t, env.Cwd, "small.txt", "one\ntwo\nthree\n")
	wantText(t, call(t, rd, map[string]any{"path": "small.txt"}), false, "one\ntwo\nthree\n")
	wantText(t, call(t, rd, map[string]any{"path": "small.txt", "offset": 2, "limit": 1}), false,
		"two\n\n[2 more lines in file. Use offset=3 to continue.]")
	wantText(t, call(t, rd, map[string]any{"path": "small.txt", "offset": 9}), true,
		"Offset 9 is beyond end of file (4 lines total)")
	wantText(t, call(t, rd, map[string]any{"path": "@small.txt", "offset": "3"}), false, "three\n")

	writeFile(t, env.Cwd, "long.txt", lines("line ", 1, 2500))
	r := call(t, rd, map[string]any{"path": "long.txt"})
	if !strings.HasSuffix(text(r), "line 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]") {
		t.Errorf("line truncation notice: %q", text(r)[len(text(r))-120:])
	}
	if d := detailsJSON(t, r); !strings.Contains(d, `"truncatedBy":"lines","totalLines":2500`) {
		t.Errorf("details %s", d[len(d)-300:])
	}
	r = call(t, rd, map[string]any{"path": "long.txt", "offset": 2001, "limit": 10})
	wantText(t, r, false, lines("line ", 2001, 2010)+"\n\n[490 more lines in file. Use offset=2011 to continue.]")

	wide := strings.Repeat(strings.Repeat("x", 99)+"\n", 1000) // 100 KB
	writeFile(t, env.Cwd, "wide.txt", wide)
	r = call(t, rd, map[string]any{"path": "wide.txt"})
	if !strings.HasSuffix(text(r), "\n\n[Showing lines 1-512 of 1001 (50.0KB limit). Use offset=513 to continue.]") {
		t.Errorf("byte notice: %q", text(r)[len(text(r))-100:])
	}

	writeFile(t, env.Cwd, "huge-line.txt", "short\n"+strings.Repeat("y", 60*1024)+"\nafter")
	wantText(t, call(t, rd, map[string]any{"path": "huge-line.txt", "offset": 2}), false,
		"[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' huge-line.txt | head -c 51200]")
}

func TestReadMatchesTruncateHead(t *testing.T) {
	env := newEnv(t)
	rd := mustTool(t, "read", env).(*readTool)
	contents := []string{"", "\n", "a", strings.Repeat("z", 51200), strings.Repeat("z", 51201) + "\nb",
		strings.Repeat("ab\n", 3000), strings.Repeat(strings.Repeat("é", 300)+"\n", 200)}
	for i, c := range contents {
		p := writeFile(t, env.Cwd, "f"+itoa(i), c)
		r := call(t, rd, map[string]any{"path": p})
		tr := tool.TruncateHead(c, tool.Limits{})
		if !tr.Truncated && text(r) != c {
			t.Errorf("case %d: content differs", i)
		}
		if tr.Truncated {
			got := r.Details.(ReadDetails).Truncation
			if *got != tr {
				t.Errorf("case %d: truncation\n got %+v\nwant %+v", i, *got, tr)
			}
		}
	}
}

func TestReadErrors(t *testing.T) {
	env := newEnv(t)
	rd := mustTool(t, "read", env)
	wantText(t, call(t, rd, map[string]any{"path": "nope.txt"}), true, "File not found: nope.txt")
	os.Mkdir(filepath.Join(env.Cwd, "dir"), 0o755)
	wantText(t, call(t, rd, map[string]any{"path": "dir"}), true, "Cannot read dir: it is a directory. Use ls to list its contents.")
	writeFile(t, env.Cwd, "bin.dat", "abc\x00def")
	wantText(t, call(t, rd, map[string]any{"path": "bin.dat"}), true,
		"Cannot read bin.dat: it looks like a binary file (7B). The read tool shows text files and images (jpg, png, gif, webp, bmp).")
	wantContains(t, call(t, rd, map[string]any{"path": "x", "offset": -1}), true, "offset: expected a line number of 1 or more, got -1")
	wantContains(t, call(t, rd, map[string]any{"path": "x", "limit": 0}), true, "limit: expected a positive number of lines, got 0")
	wantContains(t, call(t, rd, `{"offset":1}`), true, "path: required string is missing")
	if os.Getuid() != 0 {
		p := writeFile(t, env.Cwd, "secret", "x")
		os.Chmod(p, 0)
		wantText(t, call(t, rd, map[string]any{"path": "secret"}), true, "Cannot read file: secret. Error code: EACCES.")
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		if r := call(t, rd, map[string]any{"path": "~/definitely-not-here-relay"}); text(r) != "File not found: ~/definitely-not-here-relay" {
			t.Errorf("tilde: %q", text(r))
		}
	}
}

func pngBytes(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 100, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadImage(t *testing.T) {
	env := newEnv(t)
	os.WriteFile(filepath.Join(env.Cwd, "small.bin"), pngBytes(t, 10, 5), 0o644) // detected by magic bytes, not name
	r := call(t, mustTool(t, "read", env), map[string]any{"path": "small.bin"})
	if len(r.Content) != 2 || text(r) != "Read image file [image/png]" {
		t.Fatalf("got %d blocks: %q", len(r.Content), text(r))
	}
	if img := r.Content[1].(*llm.ImageContent); img.MimeType != "image/png" {
		t.Errorf("mime %s", img.MimeType)
	}

	os.WriteFile(filepath.Join(env.Cwd, "big.png"), pngBytes(t, 3000, 1500), 0o644)
	r = call(t, mustTool(t, "read", env), map[string]any{"path": "big.png"})
	wantText(t, r, false, "Read image file [image/png]\n[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]")
	data, _ := base64.StdEncoding.DecodeString(r.Content[1].(*llm.ImageContent).Data)
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2000 || cfg.Height != 1000 {
		t.Errorf("resized to %+v %v", cfg, err)
	}

	textOnly := tool.WithTurn(context.Background(), tool.Turn{Model: &llm.Model{ID: "text-only", Input: []string{"text"}}})
	r = callCtx(t, textOnly, mustTool(t, "read", env), map[string]any{"path": "small.bin"})
	wantText(t, r, false, "Read image file [image/png]\n[Current model does not support images. The image will be omitted from this request.]")

	env.ImagesBlock = true
	r = call(t, mustTool(t, "read", env), map[string]any{"path": "small.bin"})
	if len(r.Content) != 1 || !strings.Contains(text(r), "images.blockImages") {
		t.Errorf("blocked: %d blocks %q", len(r.Content), text(r))
	}

	os.WriteFile(filepath.Join(env.Cwd, "broken.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	r = call(t, mustTool(t, "read", newEnvAt(env.Cwd)), map[string]any{"path": "broken.png"})
	wantContains(t, r, false, "Read image file [image/png]\nImage could not be processed:")
}

func newEnvAt(cwd string) Env { return Env{Cwd: cwd, ImagesAutoResize: true} }

func TestImageMime(t *testing.T) {
	for _, c := range []struct{ head, want string }{
		{"\x89PNG\r\n\x1a\n....", "image/png"},
		{"\xff\xd8\xff\xe0", "image/jpeg"},
		{"GIF89a..", "image/gif"},
		{"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00", "image/bmp"},
		{"hello world", ""},
	} {
		if got := imageMime([]byte(c.head)); got != c.want {
			t.Errorf("%q: %q want %q", c.head, got, c.want)
		}
	}
}
