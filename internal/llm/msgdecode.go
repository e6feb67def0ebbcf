package llm

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/jsonx"
)

// fastDecode switches the single-pass decoder on. Only the differential
// tests turn it off, to get the encoding/json reference values.
var fastDecode = true

// The single-pass decoders of the message vocabulary. The encoding/json
// path scans a message once per nesting level of custom unmarshalers
// (validate, decode, then again for every content block); a jsonx.Table
// reads each byte once. Each table is built from the struct's own json
// tags (message.go, content.go), so a new field is decoded without a line
// here; only the polymorphic types (content, blocks, sections) have
// decoders of their own. Whatever a table does not decode exactly as
// encoding/json would, it reports, and the caller decodes the whole value
// again with encoding/json, which produces the value or the error.

var (
	textTable     = jsonx.NewTable[TextContent](jsonx.Discard("type"))
	imageTable    = jsonx.NewTable[ImageContent](jsonx.Discard("type"))
	thinkingTable = jsonx.NewTable[ThinkingContent](jsonx.Discard("type"))
	toolCallTable = jsonx.NewTable[ToolCall](jsonx.Discard("type"))

	systemTable     = jsonx.NewTable[SystemMessage](messageOptions()...)
	userTable       = jsonx.NewTable[UserMessage](messageOptions()...)
	assistantTable  = jsonx.NewTable[AssistantMessage](messageOptions()...)
	toolResultTable = jsonx.NewTable[ToolResultMessage](messageOptions()...)
	bashTable       = jsonx.NewTable[BashExecutionMessage](messageOptions()...)
	customTable     = jsonx.NewTable[CustomMessage](messageOptions()...)
	branchTable     = jsonx.NewTable[BranchSummaryMessage](messageOptions()...)
	compactionTable = jsonx.NewTable[CompactionSummaryMessage](messageOptions()...)
)

func messageOptions() []jsonx.Option {
	return []jsonx.Option{
		jsonx.Discard("role"),
		jsonx.Custom(decodeContent),
		jsonx.Custom(decodeBlocks),
		jsonx.Custom(decodeSections),
	}
}

// decodeRole decodes the object at the read position as the message type
// of a known role.
func decodeRole(p *jsonx.Scanner, role string) (Message, bool) {
	switch role {
	case RoleUser:
		m := &UserMessage{}
		return m, userTable.Decode(p, m)
	case RoleAssistant:
		m := &AssistantMessage{}
		return m, assistantTable.Decode(p, m)
	case RoleToolResult:
		m := &ToolResultMessage{}
		return m, toolResultTable.Decode(p, m)
	case RoleSystem:
		m := &SystemMessage{}
		return m, systemTable.Decode(p, m)
	case RoleBashExecution:
		m := &BashExecutionMessage{}
		return m, bashTable.Decode(p, m)
	case RoleCustom:
		m := &CustomMessage{}
		return m, customTable.Decode(p, m)
	case RoleBranchSummary:
		m := &BranchSummaryMessage{}
		return m, branchTable.Decode(p, m)
	case RoleCompactionSummary:
		m := &CompactionSummaryMessage{}
		return m, compactionTable.Decode(p, m)
	}
	return nil, false
}

func knownRole(r string) bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleToolResult, RoleBashExecution, RoleCustom,
		RoleBranchSummary, RoleCompactionSummary:
		return true
	}
	return false
}

// decodeAnyMessage decodes one element of a message array as
// DecodeMessage decodes its raw bytes.
func decodeAnyMessage(p *jsonx.Scanner) (Message, bool) {
	if p.Peek() != '{' {
		return nil, false
	}
	role, ok := p.FirstString("role")
	if !ok {
		if role, ok = p.PeekMember("role"); !ok {
			return nil, false
		}
	}
	if !knownRole(role) {
		raw, ok := p.Raw()
		return &UnknownMessage{Role: role, Raw: raw}, ok
	}
	return decodeRole(p, role)
}

// decodeAnyBlock decodes one element of a content array as DecodeBlock
// decodes its raw bytes.
func decodeAnyBlock(p *jsonx.Scanner) (Block, bool) {
	if p.Peek() != '{' {
		return nil, false
	}
	t, ok := p.FirstString("type")
	if !ok {
		if t, ok = p.PeekMember("type"); !ok {
			return nil, false
		}
	}
	return decodeType(p, t)
}

// decodeType decodes the block object at the read position whose type is t.
func decodeType(p *jsonx.Scanner, t string) (Block, bool) {
	switch t {
	case "text":
		b := &TextContent{}
		return b, textTable.Decode(p, b)
	case "toolCall":
		b := &ToolCall{}
		return b, toolCallTable.Decode(p, b)
	case "thinking":
		b := &ThinkingContent{}
		return b, thinkingTable.Decode(p, b)
	case "image":
		b := &ImageContent{}
		return b, imageTable.Decode(p, b)
	}
	raw, ok := p.Raw()
	return &UnknownBlock{Type: t, Raw: raw}, ok
}

// decodeBlocks decodes a content array as Blocks.UnmarshalJSON does (null
// gives an empty, non-nil list).
func decodeBlocks(p *jsonx.Scanner, dst *Blocks) bool {
	if p.Null() {
		*dst = Blocks{}
		return true
	}
	out := Blocks{}
	ok := p.Array(func(int) bool {
		b, ok := decodeAnyBlock(p)
		out = append(out, b)
		return ok
	})
	*dst = out
	return ok
}

// decodeContent decodes string-or-blocks content as Content.UnmarshalJSON
// does.
func decodeContent(p *jsonx.Scanner, dst *Content) bool {
	switch p.Peek() {
	case '"':
		s, ok := p.Text()
		*dst = Content{Text: s, IsString: true}
		return ok
	case 'n':
		*dst = Content{IsString: true}
		return p.Null()
	}
	*dst = Content{}
	return decodeBlocks(p, &dst.Blocks)
}

// decodeSections decodes system-prompt sections in member order as
// Sections.UnmarshalJSON does.
func decodeSections(p *jsonx.Scanner, dst *Sections) bool {
	if p.Null() {
		*dst = nil
		return true
	}
	out := Sections{}
	ok := p.Object(func(k string) bool {
		for _, sec := range out {
			if sec.Name == k {
				return false // repeated: encoding/json's map keeps the last value
			}
		}
		if strings.ContainsRune(k, utf8.RuneError) {
			return false // maybe invalid UTF-8, which the slow path matches raw
		}
		sec := Section{Name: strings.Clone(k)}
		if !p.Null() {
			s, ok := p.Text()
			if !ok {
				return false
			}
			sec.Text = &s
		}
		out = append(out, sec)
		return true
	})
	*dst = out
	return ok
}

// The entry points. Each reports false when the caller must use the
// encoding/json path instead.

// scanners keeps scanners with their unescaping scratch buffers: a tool
// result's text can be megabytes, and growing a fresh buffer for each
// message costs more than the decoding.
var scanners = sync.Pool{New: func() any { return new(jsonx.Scanner) }}

func getScanner(data []byte, shared bool) *jsonx.Scanner {
	p := scanners.Get().(*jsonx.Scanner)
	if shared {
		p.ResetShared(data)
	} else {
		p.ResetBytes(data)
	}
	return p
}

func putScanner(p *jsonx.Scanner) {
	p.Release()
	scanners.Put(p)
}

// fastFirst returns the value of the object's first member when it is
// name with a plain string value; otherwise the caller asks PeekString.
func fastFirst(data []byte, name string) (string, bool) {
	if !fastDecode {
		return "", false
	}
	p := getScanner(data, false)
	defer putScanner(p)
	return p.FirstString(name)
}

// fastMessage decodes a whole message of a known role; shared lets strings
// be views of data.
func fastMessage(data []byte, role string, shared bool) (Message, bool) {
	if !fastDecode {
		return nil, false
	}
	p := getScanner(data, shared)
	defer putScanner(p)
	m, ok := decodeRole(p, role)
	if !ok || !p.End() {
		return nil, false
	}
	return m, true
}

func fastBlock(data []byte, t string) (Block, bool) {
	if !fastDecode {
		return nil, false
	}
	p := getScanner(data, false)
	defer putScanner(p)
	b, ok := decodeType(p, t)
	if !ok || !p.End() {
		return nil, false
	}
	return b, true
}

// fastValue decodes the whole of data with decode into *dst, leaving *dst
// alone when it fails.
func fastValue[T any](data []byte, dst *T, decode func(*jsonx.Scanner, *T) bool) bool {
	if !fastDecode {
		return false
	}
	p := getScanner(data, false)
	defer putScanner(p)
	var v T
	if !decode(p, &v) || !p.End() {
		return false
	}
	*dst = v
	return true
}

func decodeMessages(p *jsonx.Scanner, dst *Messages) bool {
	if p.Null() {
		*dst = Messages{}
		return true
	}
	out := Messages{}
	ok := p.Array(func(int) bool {
		m, ok := decodeAnyMessage(p)
		out = append(out, m)
		return ok
	})
	*dst = out
	return ok
}
