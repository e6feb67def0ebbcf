package llm

import (
	"encoding/json"
	"fmt"

	"github.com/relay-agent/relay/internal/jsonx"
)

// Block is one content block of a message: *TextContent, *ImageContent,
// *ThinkingContent, *ToolCall, or *UnknownBlock for types we do not know.
type Block interface {
	BlockType() string
}

// TextContent is a "text" block.
type TextContent struct {
	Text          string `json:"text"`
	TextSignature string `json:"textSignature,omitempty"`
	// Volatile marks request-time text that changes on every request (the
	// harness state block). It is never persisted; clients with explicit
	// cache breakpoints put them before it, and keep it out of a tool
	// result's own content, so the cached prefix stays reusable.
	Volatile bool  `json:"-"`
	Extra    Extra `json:"-"`
}

// ImageContent is an "image" block with base64 data.
type ImageContent struct {
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Extra    Extra  `json:"-"`
}

// ThinkingContent is a "thinking" block. Signatures are opaque replay data.
type ThinkingContent struct {
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
	Extra             Extra  `json:"-"`
}

// ToolCall is a "toolCall" block. Arguments is the JSON object as the model
// produced it (compact), kept raw so it round-trips byte for byte.
type ToolCall struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
	Namespace        string          `json:"namespace,omitempty"`
	Extra            Extra           `json:"-"`
}

// UnknownBlock keeps a block of a type we do not model, verbatim.
type UnknownBlock struct {
	Type string
	Raw  json.RawMessage
}

func (*TextContent) BlockType() string     { return "text" }
func (*ImageContent) BlockType() string    { return "image" }
func (*ThinkingContent) BlockType() string { return "thinking" }
func (*ToolCall) BlockType() string        { return "toolCall" }
func (b *UnknownBlock) BlockType() string  { return b.Type }

// Each block type is written with "type" first, then its members in
// declaration order, then its Extra (see the message types).

type textPlain TextContent

func (b TextContent) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", "text", textPlain(b), b.Extra)
}

func (b *TextContent) UnmarshalJSON(data []byte) error {
	if v, ok := fastBlock(data, "text"); ok {
		*b = *v.(*TextContent)
		return nil
	}
	var w textPlain
	extra, err := unmarshalKnown(data, &w, "type")
	if err != nil {
		return err
	}
	w.Extra = extra
	*b = TextContent(w)
	return nil
}

type imagePlain ImageContent

func (b ImageContent) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", "image", imagePlain(b), b.Extra)
}

func (b *ImageContent) UnmarshalJSON(data []byte) error {
	if v, ok := fastBlock(data, "image"); ok {
		*b = *v.(*ImageContent)
		return nil
	}
	var w imagePlain
	extra, err := unmarshalKnown(data, &w, "type")
	if err != nil {
		return err
	}
	w.Extra = extra
	*b = ImageContent(w)
	return nil
}

type thinkingPlain ThinkingContent

func (b ThinkingContent) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", "thinking", thinkingPlain(b), b.Extra)
}

func (b *ThinkingContent) UnmarshalJSON(data []byte) error {
	if v, ok := fastBlock(data, "thinking"); ok {
		*b = *v.(*ThinkingContent)
		return nil
	}
	var w thinkingPlain
	extra, err := unmarshalKnown(data, &w, "type")
	if err != nil {
		return err
	}
	w.Extra = extra
	*b = ThinkingContent(w)
	return nil
}

type toolCallPlain ToolCall

func (b ToolCall) MarshalJSON() ([]byte, error) {
	p := toolCallPlain(b)
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
	}
	return marshalTagged("type", "toolCall", p, b.Extra)
}

func (b *ToolCall) UnmarshalJSON(data []byte) error {
	if v, ok := fastBlock(data, "toolCall"); ok {
		*b = *v.(*ToolCall)
		return nil
	}
	var w toolCallPlain
	extra, err := unmarshalKnown(data, &w, "type")
	if err != nil {
		return err
	}
	w.Extra = extra
	*b = ToolCall(w)
	return nil
}

func (b UnknownBlock) MarshalJSON() ([]byte, error) { return b.Raw, nil }

// DecodeBlock decodes one content block by its "type".
func DecodeBlock(data []byte) (Block, error) {
	t, ok := fastFirst(data, "type")
	if !ok {
		t, _ = jsonx.PeekString(data, "type")
	}
	var b Block
	switch t {
	case "text":
		b = &TextContent{}
	case "image":
		b = &ImageContent{}
	case "thinking":
		b = &ThinkingContent{}
	case "toolCall":
		b = &ToolCall{}
	default:
		if len(data) == 0 || data[0] != '{' {
			return nil, fmt.Errorf("content block is not an object")
		}
		return &UnknownBlock{Type: t, Raw: append(json.RawMessage(nil), data...)}, nil
	}
	if fb, ok := fastBlock(data, t); ok {
		return fb, nil
	}
	if err := json.Unmarshal(data, b); err != nil {
		return nil, fmt.Errorf("%s block: %w", t, err)
	}
	return b, nil
}

// Blocks is a content array with polymorphic decoding.
type Blocks []Block

func (bs Blocks) MarshalJSON() ([]byte, error) { return AppendJSON(nil, bs) }

func (bs *Blocks) UnmarshalJSON(data []byte) error {
	if fastValue(data, bs, decodeBlocks) {
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	out := make(Blocks, 0, len(raws))
	for i, r := range raws {
		b, err := DecodeBlock(r)
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, b)
	}
	*bs = out
	return nil
}

// Content is a message content that may be a plain string or a block array
// (user, custom and system messages). It re-encodes in the form it arrived.
type Content struct {
	Text     string
	Blocks   Blocks
	IsString bool
}

// StringContent returns string-form content.
func StringContent(s string) Content { return Content{Text: s, IsString: true} }

// BlockContent returns array-form content.
func BlockContent(b ...Block) Content { return Content{Blocks: b} }

func (c Content) MarshalJSON() ([]byte, error) {
	if c.IsString {
		return Marshal(c.Text)
	}
	return c.Blocks.MarshalJSON()
}

func (c *Content) UnmarshalJSON(data []byte) error {
	if fastValue(data, c, decodeContent) {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		*c = Content{IsString: true}
		return json.Unmarshal(data, &c.Text)
	}
	if string(data) == "null" {
		*c = Content{IsString: true}
		return nil
	}
	*c = Content{}
	return c.Blocks.UnmarshalJSON(data)
}

// AsBlocks returns the content as blocks; a string becomes one text block
// (empty strings yield no block).
func (c Content) AsBlocks() Blocks {
	if c.IsString {
		if c.Text == "" {
			return Blocks{}
		}
		return Blocks{&TextContent{Text: c.Text}}
	}
	return c.Blocks
}

// PlainText joins the text of all text blocks (or returns the string form).
func (c Content) PlainText() string {
	if c.IsString {
		return c.Text
	}
	return c.Blocks.PlainText()
}

// PlainText joins the text of all text blocks with newlines.
func (bs Blocks) PlainText() string {
	var out []byte
	first := true
	for _, b := range bs {
		if t, ok := b.(*TextContent); ok {
			if !first {
				out = append(out, '\n')
			}
			first = false
			out = append(out, t.Text...)
		}
	}
	return string(out)
}
