package llm

import (
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// The single-pass decoders of each message, block and member type. Each
// mirrors the wire struct of its type (message.go, content.go): the same
// known member names (an exact match; anything that only folds to one goes
// back to encoding/json), the same null handling per field type, and the
// same Extra for the types that keep unknown members.

var (
	knownText       = []string{"type", "text", "textSignature"}
	knownImage      = []string{"type", "data", "mimeType"}
	knownThinking   = []string{"type", "thinking", "thinkingSignature", "redacted"}
	knownToolCall   = []string{"type", "id", "name", "arguments", "thoughtSignature", "namespace"}
	knownSystem     = []string{"role", "content", "sections", "toolsAdded", "toolsRemoved", "replace", "timestamp"}
	knownUser       = []string{"role", "content", "timestamp"}
	knownAssistant  = []string{"role", "content", "api", "provider", "model", "responseModel", "responseId", "providerThinkingLevel", "thinkingLevel", "diagnostics", "usage", "stopReason", "deferred", "errorMessage", "rawStopReason", "endTurn", "timestamp"}
	knownToolResult = []string{"role", "toolCallId", "toolName", "content", "details", "usage", "nestedCalls", "isError", "timestamp"}
	knownBash       = []string{"role", "command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath", "excludeFromContext", "timestamp"}
	knownCustom     = []string{"role", "customType", "content", "display", "details", "timestamp"}
	knownBranch     = []string{"role", "summary", "fromId", "timestamp"}
	knownCompaction = []string{"role", "summary", "tokensBefore", "timestamp"}
	knownToolSpec   = []string{"name", "description", "parameters", "constrainedSampling"}
	knownToolRef    = []string{"name"}
	knownUsage      = []string{"input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "totalTokens", "cost"}
	knownCost       = []string{"input", "output", "cacheRead", "cacheWrite", "total"}
	knownDeferred   = []string{"provider", "modelId", "api", "id", "expiresAt", "pollAfterMs", "data"}
)

// member decodes one object member: known names go to the decoder
// registered at their index in known, others to Extra (ex != nil) or are
// dropped (plain structs). It is the shared loop of all struct decoders.
func (d *msgDecoder) members(known []string, ex *Extra, field func(i int) bool) bool {
	var seen fields
	return d.object(func(k []byte) bool {
		for i, name := range known {
			if string(k) == name {
				return seen.first(uint(i)) && field(i)
			}
		}
		if ex != nil {
			return d.extra(ex, k, known)
		}
		return d.ignore(k, known)
	})
}

// message decodes the object at the read position as an AgentMessage of
// a known role.
func (d *msgDecoder) message(role string) (Message, bool) {
	switch role {
	case RoleUser:
		m := &UserMessage{}
		return m, d.members(knownUser, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.content(&m.Content)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleAssistant:
		m := &AssistantMessage{}
		return m, d.members(knownAssistant, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.blocks(&m.Content)
			case 2:
				return d.strInto(&m.API)
			case 3:
				return d.strInto(&m.Provider)
			case 4:
				return d.strInto(&m.Model)
			case 5:
				return d.strInto(&m.ResponseModel)
			case 6:
				return d.strInto(&m.ResponseID)
			case 7:
				return d.strInto(&m.ProviderThinkingLevel)
			case 8:
				return d.strInto(&m.ThinkingLevel)
			case 9:
				return d.rawInto(&m.Diagnostics)
			case 10:
				return d.usage(&m.Usage)
			case 11:
				s := string(m.StopReason)
				ok := d.strInto(&s)
				m.StopReason = StopReason(s)
				return ok
			case 12:
				if d.null() {
					m.Deferred = nil
					return true
				}
				m.Deferred = &DeferredHandle{}
				return d.deferred(m.Deferred)
			case 13:
				return d.strInto(&m.ErrorMessage)
			case 14:
				return d.strInto(&m.RawStopReason)
			case 15:
				if d.null() {
					m.EndTurn = nil
					return true
				}
				v, ok := d.boolean()
				m.EndTurn = &v
				return ok
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleToolResult:
		m := &ToolResultMessage{}
		return m, d.members(knownToolResult, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&m.ToolCallID)
			case 2:
				return d.strInto(&m.ToolName)
			case 3:
				return d.blocks(&m.Content)
			case 4:
				return d.rawInto(&m.Details)
			case 5:
				if d.null() {
					m.Usage = nil
					return true
				}
				m.Usage = &Usage{}
				return d.usage(m.Usage)
			case 6:
				return d.rawInto(&m.NestedCalls)
			case 7:
				return d.boolInto(&m.IsError)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleSystem:
		m := &SystemMessage{}
		return m, d.members(knownSystem, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.content(&m.Content)
			case 2:
				return d.sections(&m.Sections)
			case 3:
				return d.toolSpecs(&m.ToolsAdded)
			case 4:
				return d.toolRefs(&m.ToolsRemoved)
			case 5:
				return d.boolInto(&m.Replace)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleBashExecution:
		m := &BashExecutionMessage{}
		return m, d.members(knownBash, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&m.Command)
			case 2:
				return d.strInto(&m.Output)
			case 3:
				if d.null() {
					m.ExitCode = nil
					return true
				}
				var n int
				ok := d.intField(&n)
				m.ExitCode = &n
				return ok
			case 4:
				return d.boolInto(&m.Cancelled)
			case 5:
				return d.boolInto(&m.Truncated)
			case 6:
				return d.strInto(&m.FullOutputPath)
			case 7:
				return d.boolInto(&m.ExcludeFromContext)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleCustom:
		m := &CustomMessage{}
		return m, d.members(knownCustom, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&m.CustomType)
			case 2:
				return d.content(&m.Content)
			case 3:
				return d.boolInto(&m.Display)
			case 4:
				return d.rawInto(&m.Details)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleBranchSummary:
		m := &BranchSummaryMessage{}
		return m, d.members(knownBranch, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&m.Summary)
			case 2:
				if d.null() {
					m.FromID = nil
					return true
				}
				s, ok := d.str()
				m.FromID = &s
				return ok
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	case RoleCompactionSummary:
		m := &CompactionSummaryMessage{}
		return m, d.members(knownCompaction, &m.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&m.Summary)
			case 2:
				return d.intField(&m.TokensBefore)
			default:
				return d.intInto(&m.Timestamp, 64)
			}
		})
	}
	return nil, false
}

// rawInto keeps a json.RawMessage member; null is kept as the bytes
// "null", as json.RawMessage does.
func (d *msgDecoder) rawInto(dst *json.RawMessage) bool {
	v, ok := d.raw()
	*dst = v
	return ok
}

// roleOf returns the role of the message object at the read position as
// DecodeMessage finds it (PeekString), cheaply when it comes first.
func (d *msgDecoder) roleOf() (string, bool) {
	if r, ok := d.firstString("role"); ok {
		return r, true
	}
	save := d.i
	if !d.skip() {
		return "", false
	}
	r, _ := PeekString(d.b[save:d.i], "role")
	d.i = save
	return r, true
}

func knownRole(r string) bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleToolResult, RoleBashExecution, RoleCustom,
		RoleBranchSummary, RoleCompactionSummary:
		return true
	}
	return false
}

// anyMessage decodes one element of a message array as DecodeMessage
// decodes its raw bytes.
func (d *msgDecoder) anyMessage() (Message, bool) {
	if d.peek() != '{' {
		return nil, false
	}
	role, ok := d.roleOf()
	if !ok {
		return nil, false
	}
	if !knownRole(role) {
		raw, ok := d.raw()
		return &UnknownMessage{Role: role, Raw: raw}, ok
	}
	return d.message(role)
}

// block decodes one element of a content array as DecodeBlock decodes
// its raw bytes.
func (d *msgDecoder) block() (Block, bool) {
	if d.peek() != '{' {
		return nil, false
	}
	t, ok := d.firstString("type")
	if !ok {
		save := d.i
		if !d.skip() {
			return nil, false
		}
		t, _ = PeekString(d.b[save:d.i], "type")
		d.i = save
	}
	return d.knownBlock(t)
}

// knownBlock decodes the block object at the read position whose type is t.
func (d *msgDecoder) knownBlock(t string) (Block, bool) {
	switch t {
	case "text":
		b := &TextContent{}
		return b, d.members(knownText, &b.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&b.Text)
			default:
				return d.strInto(&b.TextSignature)
			}
		})
	case "toolCall":
		b := &ToolCall{}
		return b, d.members(knownToolCall, &b.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&b.ID)
			case 2:
				return d.strInto(&b.Name)
			case 3:
				return d.rawInto(&b.Arguments)
			case 4:
				return d.strInto(&b.ThoughtSignature)
			default:
				return d.strInto(&b.Namespace)
			}
		})
	case "thinking":
		b := &ThinkingContent{}
		return b, d.members(knownThinking, &b.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&b.Thinking)
			case 2:
				return d.strInto(&b.ThinkingSignature)
			default:
				return d.boolInto(&b.Redacted)
			}
		})
	case "image":
		b := &ImageContent{}
		return b, d.members(knownImage, &b.Extra, func(i int) bool {
			switch i {
			case 0:
				var s string
				return d.strInto(&s)
			case 1:
				return d.strInto(&b.Data)
			default:
				return d.strInto(&b.MimeType)
			}
		})
	}
	raw, ok := d.raw()
	return &UnknownBlock{Type: t, Raw: raw}, ok
}

// blocks decodes a content array as Blocks.UnmarshalJSON does (null gives
// an empty, non-nil list).
func (d *msgDecoder) blocks(dst *Blocks) bool {
	if d.null() {
		*dst = Blocks{}
		return true
	}
	out := Blocks{}
	ok := d.array(func() bool {
		b, ok := d.block()
		out = append(out, b)
		return ok
	})
	*dst = out
	return ok
}

// content decodes string-or-blocks content as Content.UnmarshalJSON does.
func (d *msgDecoder) content(dst *Content) bool {
	switch d.peek() {
	case '"':
		s, ok := d.str()
		*dst = Content{Text: s, IsString: true}
		return ok
	case 'n':
		*dst = Content{IsString: true}
		return d.null()
	}
	*dst = Content{}
	return d.blocks(&dst.Blocks)
}

// sections decodes system-prompt sections in member order as
// Sections.UnmarshalJSON does.
func (d *msgDecoder) sections(dst *Sections) bool {
	if d.null() {
		*dst = nil
		return true
	}
	out := Sections{}
	ok := d.object(func(k []byte) bool {
		for _, sec := range out {
			if sec.Name == string(k) {
				return false // repeated: encoding/json's map keeps the last value
			}
		}
		if !utf8.Valid(k) {
			return false // encoding/json would replace the bad bytes
		}
		sec := Section{Name: string(k)}
		if !d.null() {
			s, ok := d.str()
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

func (d *msgDecoder) toolSpecs(dst *[]ToolSpec) bool {
	if d.null() {
		*dst = nil
		return true
	}
	out := []ToolSpec{}
	ok := d.array(func() bool {
		var t ToolSpec
		ok := d.members(knownToolSpec, nil, func(i int) bool {
			switch i {
			case 0:
				return d.strInto(&t.Name)
			case 1:
				return d.strInto(&t.Description)
			case 2:
				return d.rawInto(&t.Parameters)
			default:
				return d.rawInto(&t.ConstrainedSampling)
			}
		})
		out = append(out, t)
		return ok
	})
	*dst = out
	return ok
}

func (d *msgDecoder) toolRefs(dst *[]ToolRef) bool {
	if d.null() {
		*dst = nil
		return true
	}
	out := []ToolRef{}
	ok := d.array(func() bool {
		var t ToolRef
		ok := d.members(knownToolRef, nil, func(int) bool { return d.strInto(&t.Name) })
		out = append(out, t)
		return ok
	})
	*dst = out
	return ok
}

// usage decodes a Usage member; null leaves it alone.
func (d *msgDecoder) usage(u *Usage) bool {
	if d.null() {
		return true
	}
	return d.members(knownUsage, nil, func(i int) bool {
		switch i {
		case 0:
			return d.intField(&u.Input)
		case 1:
			return d.intField(&u.Output)
		case 2:
			return d.intField(&u.CacheRead)
		case 3:
			return d.intField(&u.CacheWrite)
		case 4:
			return d.intField(&u.CacheWrite1h)
		case 5:
			return d.intField(&u.Reasoning)
		case 6:
			return d.intField(&u.TotalTokens)
		default:
			if d.null() {
				return true
			}
			c := &u.Cost
			return d.members(knownCost, nil, func(i int) bool {
				switch i {
				case 0:
					return d.floatInto(&c.Input)
				case 1:
					return d.floatInto(&c.Output)
				case 2:
					return d.floatInto(&c.CacheRead)
				case 3:
					return d.floatInto(&c.CacheWrite)
				default:
					return d.floatInto(&c.Total)
				}
			})
		}
	})
}

func (d *msgDecoder) deferred(h *DeferredHandle) bool {
	return d.members(knownDeferred, nil, func(i int) bool {
		switch i {
		case 0:
			return d.strInto(&h.Provider)
		case 1:
			return d.strInto(&h.ModelID)
		case 2:
			return d.strInto(&h.API)
		case 3:
			return d.strInto(&h.ID)
		case 4:
			return d.intInto(&h.ExpiresAt, 64)
		case 5:
			return d.intInto(&h.PollAfterMs, 64)
		default:
			return d.rawInto(&h.Data)
		}
	})
}

// The entry points. Each reports false when the caller must use the
// encoding/json path instead.

// decoders keeps decoders with their unescaping scratch buffers: a tool
// result's text can be megabytes, and growing a fresh buffer for each
// message costs more than the decoding.
var decoders = sync.Pool{New: func() any { return new(msgDecoder) }}

func getDecoder(data []byte) *msgDecoder {
	d := decoders.Get().(*msgDecoder)
	d.b, d.i, d.depth, d.shared = data, 0, 0, false
	d.ws()
	return d
}

func putDecoder(d *msgDecoder) {
	d.b = nil
	if cap(d.buf) > 4<<20 {
		d.buf = nil
	}
	decoders.Put(d)
}

// fastRole returns the role of a message whose first member is "role"
// with a plain string value; otherwise DecodeMessage asks PeekString.
func fastRole(data []byte) (string, bool) {
	if !fastDecode {
		return "", false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	return d.firstString("role")
}

func fastBlockType(data []byte) (string, bool) {
	if !fastDecode {
		return "", false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	return d.firstString("type")
}

func fastMessage(data []byte, role string) (Message, bool) {
	return fastMessageOf(data, role, false)
}

// fastMessageOf is fastMessage; shared lets strings be views of data.
func fastMessageOf(data []byte, role string, shared bool) (Message, bool) {
	if !fastDecode {
		return nil, false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	d.shared = shared
	m, ok := d.message(role)
	if !ok || !d.end() {
		return nil, false
	}
	return m, true
}

func fastBlock(data []byte, t string) (Block, bool) {
	if !fastDecode {
		return nil, false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	b, ok := d.knownBlock(t)
	if !ok || !d.end() {
		return nil, false
	}
	return b, true
}

func fastBlocks(data []byte, dst *Blocks) bool {
	if !fastDecode {
		return false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	var bs Blocks
	if !d.blocks(&bs) || !d.end() {
		return false
	}
	*dst = bs
	return true
}

func fastContent(data []byte, dst *Content) bool {
	if !fastDecode {
		return false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	var c Content
	if !d.content(&c) || !d.end() {
		return false
	}
	*dst = c
	return true
}

func fastMessages(data []byte, dst *Messages) bool {
	if !fastDecode {
		return false
	}
	d := getDecoder(data)
	defer putDecoder(d)
	if d.null() {
		if !d.end() {
			return false
		}
		*dst = Messages{}
		return true
	}
	out := Messages{}
	ok := d.array(func() bool {
		m, ok := d.anyMessage()
		out = append(out, m)
		return ok
	})
	if !ok || !d.end() {
		return false
	}
	*dst = out
	return true
}
