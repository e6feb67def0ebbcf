package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type readArgs struct {
	Path   string  `json:"path" jsonschema:"Path to the file to read (relative or absolute)"`
	Offset float64 `json:"offset,omitempty" jsonschema:"Line number to start reading from (1-indexed)"`
	Limit  float64 `json:"limit,omitempty" jsonschema:"Maximum number of lines to read"`
}

var readSchema = sync.OnceValue(tool.SchemaFor[readArgs])

// ReadDetails is the read tool's details object.
type ReadDetails struct {
	Truncation *tool.Truncation `json:"truncation,omitempty"`
}

type readTool struct{ env Env }

func (t *readTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: "read",
		Description: fmt.Sprintf("Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). "+
			"Images are sent as attachments. For text files, output is truncated to %d lines or %dKB (whichever is hit first). "+
			"Use offset/limit for large files. When you need the full file, continue with offset until complete.",
			tool.DefaultMaxLines, tool.DefaultMaxBytes/1024),
		Parameters: readSchema(),
	})
}

// maxImageFileBytes bounds what read loads to decode an image.
const maxImageFileBytes = 64 << 20

func (t *readTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("read", raw)
	path := a.String("path", true)
	offset, hasOffset := a.Int("offset")
	limit, hasLimit := a.Int("limit")
	if hasOffset && offset < 0 {
		a.Fail("offset", "expected a line number of 1 or more, got %d", offset)
	}
	if hasLimit && limit < 1 {
		a.Fail("limit", "expected a positive number of lines, got %d", limit)
	}
	if r := a.Err(); r != nil {
		return *r
	}
	if ctx.Err() != nil {
		return tool.Error("Operation aborted")
	}
	abs := resolveReadPath(path, t.env.Cwd)
	f, st, err := openRegular(abs, os.O_RDONLY)
	if err != nil {
		var nr *fsx.NotRegularError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return tool.Errorf("File not found: %s", path)
		case errors.As(err, &nr) && nr.Kind == fsx.Kind(fs.ModeDir):
			return tool.Errorf("Cannot read %s: it is a directory. Use ls to list its contents.", path)
		case errors.As(err, &nr):
			return tool.Errorf("Cannot read %s: it is a %s, not a regular file.", path, nr.Kind)
		}
		return tool.Errorf("Cannot read file: %s. Error code: %s.", path, errCode(err))
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256*1024)
	head, err := br.Peek(8192)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return tool.Errorf("Cannot read file: %s. Error code: %s.", path, errCode(err))
	}
	if mime := imageMime(head); mime != "" {
		return t.readImage(ctx, br, st.Size(), mime, path)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return tool.Errorf("Cannot read %s: it looks like a binary file (%s). The read tool shows text files and images (jpg, png, gif, webp, bmp).",
			path, tool.FormatSize(int(st.Size())))
	}
	return readText(ctx, br, path, offset, hasOffset, limit, hasLimit)
}

func (t *readTool) readImage(ctx context.Context, r io.Reader, size int64, mime, path string) tool.Result {
	if size > maxImageFileBytes {
		return tool.Errorf("Cannot read %s: the image is %s, over the %s limit for images.", path,
			tool.FormatSize(int(size)), tool.FormatSize(maxImageFileBytes))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return tool.Errorf("Cannot read file: %s. Error code: %s.", path, errCode(err))
	}
	nonVision := ""
	// The model of the run calling the tool; outside a run, images go.
	if turn, ok := tool.TurnFrom(ctx); ok && turn.Model != nil && !turn.Model.SupportsImages() {
		nonVision = "[Current model does not support images. The image will be omitted from this request.]"
	}
	if t.env.ImagesBlock {
		text := fmt.Sprintf("Read image file [%s]\n[Image not sent: images are blocked by the images.blockImages setting.]", mime)
		return tool.Text(text)
	}
	p, err := processImage(data, mime, t.env.ImagesAutoResize, t.env.ImageMaxWidth, t.env.ImageMaxHeight)
	if err != nil {
		text := fmt.Sprintf("Read image file [%s]\nImage could not be processed: %v", mime, err)
		if nonVision != "" {
			text += "\n" + nonVision
		}
		return tool.Text(text)
	}
	text := fmt.Sprintf("Read image file [%s]", p.mimeType)
	for _, h := range p.hints {
		text += "\n" + h
	}
	if nonVision != "" {
		text += "\n" + nonVision
	}
	return tool.Result{Content: llm.Blocks{
		&llm.TextContent{Text: text},
		&llm.ImageContent{Data: b64(p.data), MimeType: p.mimeType},
	}}
}

// headCollector applies §10's read rules while streaming a file: it keeps
// only the lines the output can show and counts the rest, so a huge file
// costs one pass and bounded memory.
type headCollector struct {
	start, end int // selected line range [start, end); end < 0 = to EOF
	maxLines   int
	maxBytes   int

	line       int // index of the current line
	selLines   int // selected lines seen
	selBytes   int // bytes of the selected content (with separators)
	firstLen   int // byte length of the first selected line
	out        []byte
	outLines   int
	accepting  bool
	overBudget bool // a selected line did not fit
	cur        []byte
	curLen     int
}

func (c *headCollector) selected() bool {
	return c.line >= c.start && (c.end < 0 || c.line < c.end)
}

// add feeds a fragment of the current line.
func (c *headCollector) add(frag []byte) {
	c.curLen += len(frag)
	if c.selected() && c.accepting && len(c.cur) <= c.maxBytes {
		keep := min(len(frag), c.maxBytes+1-len(c.cur))
		c.cur = append(c.cur, frag[:keep]...)
	}
}

// endLine finishes the current line.
func (c *headCollector) endLine() {
	if c.selected() {
		sep := 0
		if c.selLines > 0 {
			sep = 1
		}
		if c.selLines == 0 {
			c.firstLen = c.curLen
		}
		c.selLines++
		c.selBytes += c.curLen + sep
		if c.accepting {
			if c.outLines < c.maxLines && len(c.out)+sep+c.curLen <= c.maxBytes {
				if sep == 1 {
					c.out = append(c.out, '\n')
				}
				c.out = append(c.out, c.cur...)
				c.outLines++
			} else {
				c.accepting = false
				c.overBudget = c.outLines < c.maxLines
			}
		}
	}
	c.line++
	c.cur = c.cur[:0]
	c.curLen = 0
}

func (c *headCollector) truncation() tool.Truncation {
	tr := tool.Truncation{TotalLines: c.selLines, TotalBytes: c.selBytes, MaxLines: c.maxLines, MaxBytes: c.maxBytes}
	if c.selLines <= c.maxLines && c.selBytes <= c.maxBytes {
		tr.Content = string(c.out)
		tr.OutputLines, tr.OutputBytes = c.outLines, len(c.out)
		return tr
	}
	tr.Truncated = true
	if c.firstLen > c.maxBytes {
		tr.TruncatedBy, tr.FirstLineExceedsLimit = "bytes", true
		return tr
	}
	tr.Content = string(c.out)
	tr.OutputLines, tr.OutputBytes = c.outLines, len(c.out)
	tr.TruncatedBy = "lines"
	if c.overBudget {
		tr.TruncatedBy = "bytes"
	}
	return tr
}

func readText(ctx context.Context, br *bufio.Reader, path string, offset int, hasOffset bool, limit int, hasLimit bool) tool.Result {
	start := 0
	if hasOffset && offset > 0 {
		start = offset - 1
	}
	c := &headCollector{start: start, end: -1, maxLines: tool.DefaultMaxLines, maxBytes: tool.DefaultMaxBytes, accepting: true}
	if hasLimit {
		c.end = start + limit
	}
	for n := 0; ; n++ {
		if n%256 == 0 && ctx.Err() != nil {
			return tool.Error("Operation aborted")
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			c.add(chunk[:len(chunk)-1])
			c.endLine()
		} else {
			c.add(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			c.endLine() // the last line (empty when the file ends with "\n")
			break
		}
		if err != nil {
			return tool.Errorf("Cannot read file: %s. Error code: %s.", path, errCode(err))
		}
	}
	total := c.line
	if start >= total {
		return tool.Errorf("Offset %d is beyond end of file (%d lines total)", offset, total)
	}
	tr := c.truncation()
	tr.Content = validUTF8(tr.Content)
	startDisplay := start + 1
	var text string
	var details any
	switch {
	case tr.FirstLineExceedsLimit:
		text = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			startDisplay, tool.FormatSize(c.firstLen), tool.FormatSize(tool.DefaultMaxBytes), startDisplay, path, tool.DefaultMaxBytes)
		details = ReadDetails{Truncation: &tr}
	case tr.Truncated:
		endDisplay := startDisplay + tr.OutputLines - 1
		text = tr.Content
		if tr.TruncatedBy == "lines" {
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", startDisplay, endDisplay, total, endDisplay+1)
		} else {
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Use offset=%d to continue.]",
				startDisplay, endDisplay, total, tool.FormatSize(tool.DefaultMaxBytes), endDisplay+1)
		}
		details = ReadDetails{Truncation: &tr}
	case hasLimit && start+c.selLines < total:
		remaining := total - (start + c.selLines)
		text = fmt.Sprintf("%s\n\n[%d more lines in file. Use offset=%d to continue.]", tr.Content, remaining, start+c.selLines+1)
	default:
		text = tr.Content
	}
	r := tool.Text(text)
	if details != nil {
		r.Details = details
	}
	return r
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
