package transcript

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // decoders for DecodeConfig and re-encoding to PNG
	_ "image/jpeg"
	"image/png"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Image protocols.
const (
	ProtocolKitty  = "kitty"
	ProtocolITerm2 = "iterm2"
)

// ImageOptions say how images in messages are drawn. With no Protocol
// (and everywhere but the lines regular mode prints once into the
// scrollback) an image is the "[image …]" marker.
type ImageOptions struct {
	Protocol   string // ProtocolKitty, ProtocolITerm2 or "" (markers only)
	WidthCells int    // terminal.imageWidthCells
	// Placeholders draws kitty images in redrawn lines (fullscreen) as
	// unicode placeholder cells; see kitty.go.
	Placeholders bool
}

// maxImageRows caps an image's height in rows.
const maxImageRows = 40

// imageLines are the rows that draw img inline: the first holds the escape
// sequence, every row moves the cursor past the image so the renderer's
// erase-to-end-of-line cannot clear it. The terminal keeps what was drawn
// in its scrollback; these lines are printed once, never redrawn. nil when
// the image cannot be drawn (unknown format, bad data).
func imageLines(img *llm.ImageContent, o ImageOptions, width int) []string {
	if o.Protocol == "" {
		return nil
	}
	raw, cols, rows, format, ok := prepare(img, o.WidthCells, width)
	if !ok {
		return nil
	}
	var err error
	var seq string
	switch o.Protocol {
	case ProtocolKitty:
		if format != "png" {
			// The kitty protocol takes PNG (f=100) or raw pixels.
			if raw, err = toPNG(raw); err != nil {
				return nil
			}
		}
		seq = kittySeq(base64.StdEncoding.EncodeToString(raw), cols, rows)
	case ProtocolITerm2:
		seq = fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1:%s\a",
			len(raw), cols, rows, base64.StdEncoding.EncodeToString(raw))
	default:
		return nil
	}
	past := fmt.Sprintf("\x1b[%dC", cols+1)
	lines := make([]string, rows)
	// Save and restore the cursor around the image: kitty (C=1) leaves it
	// in place anyway; iTerm2 would move it below the image.
	lines[0] = "\x1b7" + seq + "\x1b8" + past
	for i := 1; i < rows; i++ {
		lines[i] = past
	}
	return lines
}

// prepare decodes img and sizes it: at most widthCells (default 60) and
// width-2 columns, never more than ~8 pixels per cell, and a height in
// rows from the aspect ratio (a cell is about twice as tall as wide).
func prepare(img *llm.ImageContent, widthCells, width int) (raw []byte, cols, rows int, format string, ok bool) {
	if img == nil || img.Data == "" {
		return nil, 0, 0, "", false
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return nil, 0, 0, "", false
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, 0, 0, "", false
	}
	cols = widthCells
	if cols <= 0 {
		cols = 60
	}
	cols = max(1, min(cols, width-2, (cfg.Width+7)/8))
	rows = max(1, min(maxImageRows, (cols*cfg.Height+cfg.Width)/(2*cfg.Width)))
	if rows == maxImageRows {
		cols = max(1, min(cols, rows*2*cfg.Width/cfg.Height))
	}
	return raw, cols, rows, format, true
}

// kittySeq transmits and displays a PNG in chunks of 4096 base64 bytes;
// q=2 keeps the terminal from answering into our input.
func kittySeq(b64 string, cols, rows int) string {
	var sb strings.Builder
	first := true
	for len(b64) > 0 {
		n := min(4096, len(b64))
		chunk := b64[:n]
		b64 = b64[n:]
		more := 0
		if len(b64) > 0 {
			more = 1
		}
		if first {
			fmt.Fprintf(&sb, "\x1b_Ga=T,f=100,q=2,C=1,c=%d,r=%d,m=%d;%s\x1b\\", cols, rows, more, chunk)
			first = false
		} else {
			fmt.Fprintf(&sb, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
		}
	}
	return sb.String()
}

func toPNG(raw []byte) ([]byte, error) {
	im, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
