package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/llm"
)

// OutputMaxBytes is the model-facing text of one MCP result; longer text
// loses its middle and the full text goes to a temporary file.
const OutputMaxBytes = 20 * 1024

// ReadResourceTool reads the resources resource links point at.
const ReadResourceTool = "read_mcp_resource"

// Details is the details object of an MCP tool result.
type Details struct {
	Server         string `json:"server"`
	Tool           string `json:"tool"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// outputSaver writes data to a new temporary file with the given
// extension (".txt") and returns its path.
type outputSaver func(data []byte, ext string) (string, error)

func tempSaver(dir string) outputSaver {
	return func(data []byte, ext string) (string, error) {
		f, err := os.CreateTemp(dir, "relay-mcp-*"+ext)
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(f.Name())
			return "", err
		}
		return f.Name(), f.Close()
	}
}

func formatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

var extRE = regexp.MustCompile(`\.[A-Za-z0-9]{1,8}$`)

func extensionOf(uri string) string {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		p = u.Path
	}
	if e := extRE.FindString(path.Base(p)); e != "" {
		return e
	}
	return ".bin"
}

func isTextMIME(m string) bool {
	t := strings.ToLower(strings.TrimSpace(strings.SplitN(m, ";", 2)[0]))
	return strings.HasPrefix(t, "text/") || t == "application/json" || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml")
}

// converter turns MCP content into model content.
type converter struct {
	server   string
	readable bool // resource links may name read_mcp_resource
	save     outputSaver
}

func (c converter) blocks(content []sdk.Content) llm.Blocks {
	var out llm.Blocks
	for _, b := range content {
		out = append(out, c.block(b)...)
	}
	return out
}

func (c converter) block(b sdk.Content) llm.Blocks {
	text := func(s string) llm.Blocks { return llm.Blocks{&llm.TextContent{Text: s}} }
	switch v := b.(type) {
	case *sdk.TextContent:
		return text(v.Text)
	case *sdk.ImageContent:
		return llm.Blocks{&llm.ImageContent{Data: base64.StdEncoding.EncodeToString(v.Data), MimeType: v.MIMEType}}
	case *sdk.AudioContent:
		return text(fmt.Sprintf("[Audio content (%s, %s) omitted]", v.MIMEType, formatSize(int64(len(v.Data)))))
	case *sdk.ResourceLink:
		var details []string
		if v.MIMEType != "" {
			details = append(details, v.MIMEType)
		}
		if v.Size != nil {
			details = append(details, formatSize(*v.Size))
		}
		title := v.Title
		if title == "" {
			title = v.Name
		}
		s := fmt.Sprintf("[Resource %s %q", v.URI, title)
		if len(details) > 0 {
			s += " (" + strings.Join(details, ", ") + ")"
		}
		if v.Description != "" {
			s += ": " + v.Description
		}
		if c.readable {
			s += fmt.Sprintf(". Read it with %s (server %q)", ReadResourceTool, c.server)
		}
		return text(s + "]")
	case *sdk.EmbeddedResource:
		if v.Resource == nil {
			return nil
		}
		return c.resourceContents(v.Resource)
	}
	raw, _ := json.Marshal(b)
	return text(string(raw))
}

// resourceContents converts one resource's contents: text as text, images
// as images, text-like blobs decoded, other blobs saved to a file.
func (c converter) resourceContents(r *sdk.ResourceContents) llm.Blocks {
	text := func(s string) llm.Blocks { return llm.Blocks{&llm.TextContent{Text: s}} }
	if r.Blob == nil {
		return text(r.Text)
	}
	if strings.HasPrefix(r.MIMEType, "image/") {
		return llm.Blocks{&llm.ImageContent{Data: base64.StdEncoding.EncodeToString(r.Blob), MimeType: r.MIMEType}}
	}
	if isTextMIME(r.MIMEType) && utf8.Valid(r.Blob) {
		return text(string(r.Blob))
	}
	mime := r.MIMEType
	if mime == "" {
		mime = "unknown type"
	}
	kind := fmt.Sprintf("%s, %s", mime, formatSize(int64(len(r.Blob))))
	p, err := c.save(r.Blob, extensionOf(r.URI))
	if err != nil {
		return text(fmt.Sprintf("[Binary resource %s (%s) could not be saved: %v]", r.URI, kind, err))
	}
	return text(fmt.Sprintf("[Binary resource %s (%s) saved to %s]", r.URI, kind, p))
}

func textOf(b llm.Blocks) string {
	var parts []string
	for _, x := range b {
		if t, ok := x.(*llm.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// truncateMiddle keeps the start and end of s within max bytes (on rune
// boundaries) around a "…N chars truncated…" marker.
func truncateMiddle(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	head := max / 2
	tail := max - head
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	removed := utf8.RuneCountInString(s[head:start])
	return s[:head] + fmt.Sprintf("…%d chars truncated…", removed) + s[start:], true
}

// limit keeps the model-facing text within OutputMaxBytes. Longer text
// becomes one text block saying how much there was, with the middle cut
// and the path of the file with the full text; images follow it.
func (c converter) limit(b llm.Blocks) (llm.Blocks, string) {
	combined := textOf(b)
	cut, truncated := truncateMiddle(combined, OutputMaxBytes)
	if !truncated {
		return b, ""
	}
	var where, full string
	if p, err := c.save([]byte(combined), ".txt"); err != nil {
		where = fmt.Sprintf("[Could not save the full output: %v]", err)
	} else {
		full = p
		where = fmt.Sprintf("[Full output: %s (read it with offset/limit)]", p)
	}
	lines := strings.Count(combined, "\n") + 1
	tokens := (len(combined) + 3) / 4
	out := llm.Blocks{&llm.TextContent{Text: fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s\n\n%s", tokens, lines, cut, where)}}
	for _, x := range b {
		if _, ok := x.(*llm.ImageContent); ok {
			out = append(out, x)
		}
	}
	return out, full
}

// convertResult turns a CallToolResult into model content; isError
// results become error results.
func (c converter) convertResult(tool string, res *sdk.CallToolResult) (llm.Blocks, Details, bool) {
	var blocks llm.Blocks
	if len(res.Content) > 0 {
		blocks = c.blocks(res.Content)
	} else if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err == nil {
			blocks = llm.Blocks{&llm.TextContent{Text: string(raw)}}
		}
	}
	if res.IsError && strings.TrimSpace(textOf(blocks)) == "" {
		blocks = append(blocks, &llm.TextContent{Text: fmt.Sprintf("MCP tool %s/%s returned an error", c.server, tool)})
	}
	if len(blocks) == 0 {
		blocks = llm.Blocks{&llm.TextContent{Text: ""}}
	}
	out, full := c.limit(blocks)
	return out, Details{Server: c.server, Tool: tool, FullOutputPath: full}, res.IsError
}
