package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/jsonx"
)

// The single-pass decoder must yield exactly what the encoding/json path
// yields: deep-equal values, the same errors, the same re-encoding.

// withSlow runs fn on the encoding/json path. Tests that use it are not
// parallel, so no other test sees the switch.
func withSlow(fn func()) {
	fastDecode = false
	defer func() { fastDecode = true }()
	fn()
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// sameDecode reports how the fast and the encoding/json decodings of data
// differ ("" when they agree): DecodeMessage and DecodeBlock, and with all
// set every type's own UnmarshalJSON too.
func sameDecode(data []byte, all bool) string {
	var diffs []string
	cmp := func(what string, fv, sv any, ferr, serr error) {
		if errText(ferr) != errText(serr) {
			diffs = append(diffs, fmt.Sprintf("%s: error %q, encoding/json %q", what, errText(ferr), errText(serr)))
			return
		}
		if ferr != nil {
			return
		}
		if !reflect.DeepEqual(fv, sv) {
			diffs = append(diffs, fmt.Sprintf("%s: value\n  fast %#v\n  json %#v", what, deref(fv), deref(sv)))
			return
		}
		fb, ferr := Marshal(fv)
		sb, serr := Marshal(sv)
		if !bytes.Equal(fb, sb) || errText(ferr) != errText(serr) {
			diffs = append(diffs, fmt.Sprintf("%s: re-encoding %s vs %s", what, fb, sb))
		}
	}

	fm, ferr := DecodeMessage(data)
	var sm Message
	var serr error
	withSlow(func() { sm, serr = DecodeMessage(data) })
	cmp("DecodeMessage", fm, sm, ferr, serr)

	fb, ferr := DecodeBlock(data)
	var sb Block
	withSlow(func() { sb, serr = DecodeBlock(data) })
	cmp("DecodeBlock", fb, sb, ferr, serr)
	if !all {
		return strings.Join(diffs, "\n")
	}

	// The types' own UnmarshalJSON, as encoding/json calls them from
	// other structs (a compaction's systemMessage, a context edit's content).
	for _, mk := range []func() any{
		func() any { return &Content{} },
		func() any { return &Blocks{} },
		func() any { return &Messages{} },
		func() any { return &SystemMessage{} },
		func() any { return &UserMessage{} },
		func() any { return &AssistantMessage{} },
		func() any { return &ToolResultMessage{} },
		func() any { return &BashExecutionMessage{} },
		func() any { return &CustomMessage{} },
		func() any { return &BranchSummaryMessage{} },
		func() any { return &CompactionSummaryMessage{} },
		func() any { return &TextContent{} },
		func() any { return &ImageContent{} },
		func() any { return &ThinkingContent{} },
		func() any { return &ToolCall{} },
	} {
		fv, sv := mk(), mk()
		ferr := json.Unmarshal(data, fv)
		withSlow(func() { serr = json.Unmarshal(data, sv) })
		// A failed json.Unmarshal may leave partial values behind; only
		// the error has to agree then.
		cmp(fmt.Sprintf("Unmarshal %T", fv), fv, sv, ferr, serr)
	}
	return strings.Join(diffs, "\n")
}

func deref(v any) any {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return v
}

// decodeCases are shapes the roundtrip fixtures lack: everything the fast
// decoder must either get right or hand back to encoding/json.
var decodeCases = []string{
	// strings
	`{"role":"user","content":"tab\there \"q\" back\\slash \/ \b\f\r\n \u00e9\u4e2d \ud83d\ude00","timestamp":1}`,
	`{"role":"user","content":"lone \ud83d x \ude00 \ud800\ud800\udc00 \ud800\u0041 end\ud800","timestamp":1}`,
	"{\"role\":\"user\",\"content\":\"bad utf8 \xff\xfe \xed\xa0\x80 \xc3 ok \xc3\xa9 \xef\xbf\xbd\",\"timestamp\":1}",
	"{\"role\":\"user\",\"content\":\"bad utf8 and escape \xff \\n\",\"timestamp\":1}",
	"{\"role\":\"user\",\"content\":\"ctl \x01\",\"timestamp\":1}",
	`{"role":"user","content":"bad esc \x","timestamp":1}`,
	`{"role":"user","content":"bad esc \'","timestamp":1}`,
	`{"role":"user","content":"short \u12","timestamp":1}`,
	`{"role":"user","content":"U+2028 ` + "\u2028\u2029" + ` inside","timestamp":1}`,
	`{"role":"us\u0065r","content":"escaped role","timestamp":1}`,
	// whitespace and framing
	" \t\n{ \"role\" : \"user\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"x\" } ] , \"timestamp\" : 1 } \r\n",
	`{"role":"user","content":"x","timestamp":1} x`,
	`{"role":"user","content":"x","timestamp":1}}`,
	`{"role":"user","content":"x","timestamp":1`,
	`{"role":"user","content":"x",}`,
	`{"role":"user"}`,
	`{"role":"user",}`,
	`{"role":"user" "content":"x"}`,
	`{"content":"x","timestamp":2,"role":"user"}`,
	`{"content":[{"role":"assistant"}],"role":"user"}`,
	// keys
	`{"role":"user","Content":"folded","timestamp":1}`,
	`{"role":"user","TIMESTAMP":5,"timestamp":1}`,
	`{"role":"compactionSummary","ſummary":"long s","tokensBefore":1,"timestamp":1}`,
	`{"role":"user","content":"x","timestamp":1,"\u0066uture":1}`,
	`{"role":"user","content":"x","timestamp":1,"ünknown":1}`,
	`{"role":"user","content":"x","content":"y","timestamp":1}`,
	`{"role":"user","content":"x","timestamp":1,"a":1,"a":2}`,
	`{"role":"user","role":"assistant","content":"x"}`,
	`{"role":"user","content":"x","timestamp":1,"z":{"deep":[1,2.5e-3,-0,true,false,null,"s\n",{}]},"a":[],"m":"\ud800"}`,
	"{\"role\":\"user\",\"content\":\"x\",\"extra\":\"raw \xff kept\"}",
	// numbers
	`{"role":"user","content":"x","timestamp":1.0}`,
	`{"role":"user","content":"x","timestamp":1e3}`,
	`{"role":"user","content":"x","timestamp":-0}`,
	`{"role":"user","content":"x","timestamp":01}`,
	`{"role":"user","content":"x","timestamp":-}`,
	`{"role":"user","content":"x","timestamp":99999999999999999999}`,
	`{"role":"user","content":"x","timestamp":"1"}`,
	`{"role":"user","content":"x","extra":1.}`,
	`{"role":"user","content":"x","extra":1e}`,
	`{"role":"user","content":"x","extra":-1.5E+7}`,
	`{"role":"compactionSummary","summary":"s","tokensBefore":9223372036854775807,"timestamp":-9223372036854775808}`,
	`{"role":"compactionSummary","summary":"s","tokensBefore":9223372036854775808,"timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":1e400,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"input":1.5},"stopReason":"stop","timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"cost":{"total":0.1,"Total":0.2}},"stopReason":"stop","timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"cost":{"total":1.25e-7,"junk":[1]},"junk":{"a":null}},"stopReason":"stop","timestamp":1}`,
	// nulls for every kind of field
	`{"role":"user","content":null,"timestamp":null}`,
	`{"role":"assistant","content":null,"api":null,"usage":null,"diagnostics":null,"deferred":null,"endTurn":null,"stopReason":null,"timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"input":null,"cost":null},"endTurn":true,"deferred":{"provider":"p","modelId":"m","api":"a","id":"i","expiresAt":5,"pollAfterMs":null,"data":{"x":1}},"diagnostics":[{"k":"v"}],"stopReason":"deferred","timestamp":1}`,
	`{"role":"assistant","content":[],"endTurn":"yes","timestamp":1}`,
	`{"role":"assistant","content":{},"timestamp":1}`,
	`{"role":"assistant","content":"str","timestamp":1}`,
	`{"role":"assistant","content":[null],"timestamp":1}`,
	`{"role":"assistant","content":["text"],"timestamp":1}`,
	`{"role":"assistant","content":[{"text":"no type"},{"type":5},{"type":"video","url":"u"},{"text":"x","type":"text"},{"type":"text","text":null,"textSignature":"s"}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{ "a" : [1, 2] }},{"type":"toolCall","id":"d","name":"n","arguments":null},{"type":"toolCall","id":"e","name":"n"},{"type":"toolCall","arguments":"s","namespace":"ns","x":1}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","redacted":null},{"type":"thinking","thinking":"t","redacted":"no"},{"type":"image","data":"d","mimeType":"image/png","w":1}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"text","text":"a","Text":"b"}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"text","text":"a","text":"b"}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"text","type":"image","data":"x"}],"timestamp":1}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"details":null,"usage":null,"nestedCalls":[],"isError":null,"timestamp":1}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"usage":{},"isError":true,"timestamp":1}`,
	`{"role":"toolResult","toolCallId":5,"content":[]}`,
	`{"role":"bashExecution","command":"c","output":"o","exitCode":null,"cancelled":null,"truncated":true,"fullOutputPath":"/p","excludeFromContext":false,"timestamp":1}`,
	`{"role":"bashExecution","command":"c","output":"o","exitCode":-3,"timestamp":1}`,
	`{"role":"bashExecution","command":"c","output":"o","exitCode":1.5,"timestamp":1}`,
	`{"role":"custom","customType":"t","content":[{"type":"text","text":"x"}],"display":false,"details":{"a":"b"},"timestamp":1}`,
	`{"role":"branchSummary","summary":"s","fromId":null,"timestamp":1}`,
	`{"role":"branchSummary","summary":"s","fromId":"\u0041","timestamp":1}`,
	// system messages
	`{"role":"system","content":[{"type":"text","text":"x"}],"sections":null,"toolsAdded":null,"toolsRemoved":null,"replace":true,"timestamp":1}`,
	`{"role":"system","content":"","sections":{},"toolsAdded":[],"toolsRemoved":[],"timestamp":1}`,
	`{"role":"system","content":"","sections":{"a":"1","b":null,"a":"2"},"timestamp":1}`,
	`{"role":"system","content":"","sections":{"a":1},"timestamp":1}`,
	`{"role":"system","content":"","sections":{"\u0061":"esc","é":"x"},"timestamp":1}`,
	"{\"role\":\"system\",\"content\":\"\",\"sections\":{\"\xff\":\"bad key\"},\"timestamp\":1}",
	`{"role":"system","content":"","sections":[],"timestamp":1}`,
	`{"role":"system","content":"","toolsAdded":[null,{"name":"a","Description":"d","parameters":{"type":"object"},"constrainedSampling":null,"x":1}],"toolsRemoved":[{"name":"w","Name":"v"}],"timestamp":1}`,
	`{"role":"system","content":"","toolsAdded":[{"name":"a","name":"b"}],"timestamp":1}`,
	`{"role":"system","content":"","sections":{"é":"x","b":null,"":""},"toolsAdded":[{"name":"a","parameters":{"type":"object"},"constrainedSampling":null,"x":1}],"toolsRemoved":[{"name":"w","y":[]}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","redacted":null,"thinkingSignature":null}],"timestamp":1}`,
	`{"role":"system","content":"","toolsAdded":{},"timestamp":1}`,
	// other roles and non-objects
	`{"role":"hookMessage","content":"x"}`,
	`{"role":5,"content":"x"}`,
	`{"role":null}`,
	`{}`,
	`[]`,
	`null`,
	`"text"`,
	``,
	`{"type":"text","text":"a block","x":[1]}`,
	`{"type":"toolCall","id":"1","name":"n","arguments":{}}`,
	`{"type":"mystery","x":1}`,
	` {"type":"text","text":"lead"}`,
	`[{"type":"text","text":"a"},{"type":"image","data":"d","mimeType":"m"}]`,
	`[{"role":"user","content":"x","timestamp":1},{"role":"x-custom","a":1},{"role":"assistant","content":[],"timestamp":2}]`,
	`[{"role":"user","content":"x","timestamp":1},5]`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
}

func roundtripLines(t testing.TB) [][]byte {
	data, err := os.ReadFile("testdata/roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	inputs := roundtripLines(t)
	for _, c := range decodeCases {
		inputs = append(inputs, []byte(c))
	}
	inputs = append(inputs, []byte(`{"role":"user","content":"x","timestamp":1,"deep":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+`}`))
	for _, in := range inputs {
		if d := sameDecode(in, true); d != "" {
			t.Errorf("%s\n%s", in, d)
		}
	}
}

// Every fixture line with each byte deleted, doubled or replaced by a
// character that matters to a JSON scanner.
func TestFastDecodeMutations(t *testing.T) {
	subst := []byte{'"', '\\', '{', '}', '[', ']', ',', ':', '0', 'n', ' ', 0x01, 0xff, 'A'}
	n := 0
	for _, line := range roundtripLines(t) {
		for i := range line {
			muts := [][]byte{
				append(append([]byte{}, line[:i]...), line[i+1:]...),
				append(append([]byte{}, line[:i+1]...), line[i:]...),
			}
			for _, c := range subst {
				m := append([]byte{}, line...)
				m[i] = c
				muts = append(muts, m)
			}
			for _, m := range muts {
				n++
				if d := sameDecode(m, false); d != "" {
					t.Fatalf("%s\n%s", m, d)
				}
			}
		}
	}
	t.Logf("%d mutations agree", n)
}

// The fast path must really take the common shapes, not hand them back.
func TestFastDecodeTakesFixtures(t *testing.T) {
	lines := roundtripLines(t)
	for _, l := range benchLines() {
		lines = append(lines, l)
	}
	for _, line := range lines {
		role, _ := jsonx.PeekString(line, "role")
		if !knownRole(role) {
			continue
		}
		if _, ok := fastMessage(line, role, false); !ok {
			t.Errorf("fast path refused %s", line)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	data, err := os.ReadFile("testdata/roundtrip.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		f.Add(line)
	}
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if d := sameDecode(in, true); d != "" {
			t.Fatalf("%q\n%s", in, d)
		}
	})
}

// benchLines are realistic session messages of 1-10 KB: a prompt, an
// assistant turn with thinking, text and a tool call, and a tool result
// with code (escaped newlines, quotes, tabs and some non-ASCII).
func benchLines() map[string][]byte {
	code := strings.Repeat("func (s *Store) Append(e *Entry) error {\n\tif e == nil {\n\t\treturn fmt.Errorf(\"nil entry: %w\", errBad)\n\t}\n\t// écrit une ligne — one Write per record\n\treturn s.w.Write(e.raw)\n}\n\n", 40)
	prose := strings.Repeat("Please look at the session store and make the reader tolerant of torn final lines; keep the tests green. ", 10)
	user, _ := Marshal(&UserMessage{Content: StringContent(prose), Timestamp: 1733234401000})
	args, _ := Marshal(map[string]string{"path": "internal/session/store.go", "oldText": code[:600], "newText": code[:700]})
	asst, _ := Marshal(&AssistantMessage{
		Content: Blocks{
			&ThinkingContent{Thinking: strings.Repeat("The reader splits on LF only, so U+2028 inside strings is fine. ", 20), ThinkingSignature: strings.Repeat("c2lnbmF0dXJl", 30)},
			&TextContent{Text: prose},
			&ToolCall{ID: "toolu_01ABCDEF", Name: "edit", Arguments: args},
		},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
		Usage:      Usage{Input: 1200, Output: 300, CacheRead: 50000, TotalTokens: 51500, Cost: Cost{Input: 0.0036, Output: 0.0045, CacheRead: 0.015, Total: 0.0231}},
		StopReason: StopToolUse, Timestamp: 1733234402000,
	})
	result, _ := Marshal(&ToolResultMessage{
		ToolCallID: "toolu_01ABCDEF", ToolName: "read",
		Content:   Blocks{&TextContent{Text: code}},
		Details:   json.RawMessage(`{"truncation":{"truncated":false,"totalLines":320}}`),
		Timestamp: 1733234403000,
	})
	return map[string][]byte{"user": user, "assistant": asst, "toolResult": result}
}

func BenchmarkDecodeMessage(b *testing.B) {
	lines := benchLines()
	for _, path := range []string{"fast", "encoding-json"} {
		for _, kind := range []string{"user", "assistant", "toolResult"} {
			line := lines[kind]
			b.Run(fmt.Sprintf("%s/%s-%dB", path, kind, len(line)), func(b *testing.B) {
				fastDecode = path == "fast"
				defer func() { fastDecode = true }()
				b.SetBytes(int64(len(line)))
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if _, err := DecodeMessage(line); err != nil {
						b.Fatal(err)
					}
				}
				// CPU time too: wall time on a shared machine varies with load.
				if cpu := processCPU() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(len(line))*float64(b.N)/(float64(cpu)/1e9)/1e6, "cpu-MB/s")
				}
			})
		}
	}
}

func TestBenchLinesDecode(t *testing.T) {
	for kind, line := range benchLines() {
		if len(line) < 1000 || len(line) > 10240 {
			t.Errorf("%s: %d bytes, want 1-10 KB", kind, len(line))
		}
		if d := sameDecode(line, true); d != "" {
			t.Errorf("%s: %s", kind, d)
		}
	}
}

// genJSON builds random message-shaped JSON: every role and block type,
// fields in any order, nulls, wrong types, unknown members, escapes,
// invalid UTF-8 and whitespace, so the differential test sees valid
// documents the byte mutations rarely reach.
type genJSON struct {
	r   *rand.Rand
	out []byte
}

func (g *genJSON) ws() {
	if g.r.IntN(8) == 0 {
		g.out = append(g.out, []string{" ", "\n", "\t ", "\r\n"}[g.r.IntN(4)]...)
	}
}

var genPieces = []string{
	"plain text ", "x", `\n`, `\"`, `\\`, `\/`, `\t`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`,
	`\u0000`, "é", "\xff", "\xed\xa0\x80", "\u2028", "中文", `\b\f\r`, "\xc3", "'", "<&>",
}

func (g *genJSON) str() {
	g.out = append(g.out, '"')
	for n := g.r.IntN(6); n > 0; n-- {
		g.out = append(g.out, genPieces[g.r.IntN(len(genPieces))]...)
	}
	g.out = append(g.out, '"')
}

func (g *genJSON) any(depth int) {
	switch k := g.r.IntN(9); {
	case k == 0 && depth < 4:
		g.out = append(g.out, '{')
		for i := g.r.IntN(3); i > 0; i-- {
			g.ws()
			g.str()
			g.out = append(g.out, ':')
			g.any(depth + 1)
			if i > 1 {
				g.out = append(g.out, ',')
			}
		}
		g.out = append(g.out, '}')
	case k == 1 && depth < 4:
		g.out = append(g.out, '[')
		for i := g.r.IntN(3); i > 0; i-- {
			g.any(depth + 1)
			if i > 1 {
				g.out = append(g.out, ',')
			}
		}
		g.out = append(g.out, ']')
	case k == 2:
		g.str()
	case k == 3:
		g.out = append(g.out, []string{"true", "false", "null"}[g.r.IntN(3)]...)
	default:
		g.out = append(g.out, []string{"0", "-1", "17", "1.5", "-2.5e-3", "1E9", "9223372036854775807", "1e400", "12345678901234567890"}[g.r.IntN(9)]...)
	}
	g.ws()
}

// value writes a value of the given kind, sometimes null or of another kind.
func (g *genJSON) value(kind string, depth int) {
	switch g.r.IntN(14) {
	case 0:
		g.out = append(g.out, "null"...)
		return
	case 1:
		g.any(depth)
		return
	}
	switch kind {
	case "s":
		g.str()
	case "i":
		g.out = append(g.out, []string{"0", "1733234401000", "-3", "42"}[g.r.IntN(4)]...)
	case "f":
		g.out = append(g.out, []string{"0", "0.0036", "1.25e-7", "3"}[g.r.IntN(4)]...)
	case "b":
		g.out = append(g.out, []string{"true", "false"}[g.r.IntN(2)]...)
	case "raw":
		g.any(depth)
	case "content":
		if g.r.IntN(2) == 0 {
			g.str()
		} else {
			g.value("blocks", depth)
		}
	case "blocks":
		g.out = append(g.out, '[')
		for i := g.r.IntN(4); i > 0; i-- {
			g.object(blockShapes[g.r.IntN(len(blockShapes))], depth+1)
			if i > 1 {
				g.out = append(g.out, ',')
			}
		}
		g.out = append(g.out, ']')
	case "sections":
		g.out = append(g.out, '{')
		for i := g.r.IntN(3); i > 0; i-- {
			g.str()
			g.out = append(g.out, ':')
			g.value("s", depth)
			if i > 1 {
				g.out = append(g.out, ',')
			}
		}
		g.out = append(g.out, '}')
	case "tools":
		g.out = append(g.out, '[')
		for i := g.r.IntN(3); i > 0; i-- {
			g.object(shape{"name:s", "description:s", "parameters:raw", "constrainedSampling:raw"}, depth+1)
			if i > 1 {
				g.out = append(g.out, ',')
			}
		}
		g.out = append(g.out, ']')
	case "usage":
		g.object(shape{"input:i", "output:i", "cacheRead:i", "cacheWrite:i", "cacheWrite1h:i", "reasoning:i", "totalTokens:i", "cost:cost"}, depth+1)
	case "cost":
		g.object(shape{"input:f", "output:f", "cacheRead:f", "cacheWrite:f", "total:f"}, depth+1)
	case "deferred":
		g.object(shape{"provider:s", "modelId:s", "api:s", "id:s", "expiresAt:i", "pollAfterMs:i", "data:raw"}, depth+1)
	}
}

// shape lists "name:kind" members; the first, when it is role or type,
// is a fixed string.
type shape []string

var blockShapes = []shape{
	{"type=text", "text:s", "textSignature:s"},
	{"type=image", "data:s", "mimeType:s"},
	{"type=thinking", "thinking:s", "thinkingSignature:s", "redacted:b"},
	{"type=toolCall", "id:s", "name:s", "arguments:raw", "thoughtSignature:s", "namespace:s"},
	{"type=video", "url:s"},
	{"text:s"},
}

var messageShapes = []shape{
	{"role=user", "content:content", "timestamp:i"},
	{"role=assistant", "content:blocks", "api:s", "provider:s", "model:s", "responseModel:s", "responseId:s", "providerThinkingLevel:s", "thinkingLevel:s", "diagnostics:raw", "usage:usage", "stopReason:s", "deferred:deferred", "errorMessage:s", "rawStopReason:s", "endTurn:b", "timestamp:i"},
	{"role=toolResult", "toolCallId:s", "toolName:s", "content:blocks", "details:raw", "usage:usage", "nestedCalls:raw", "isError:b", "timestamp:i"},
	{"role=system", "content:content", "sections:sections", "toolsAdded:tools", "toolsRemoved:tools", "replace:b", "timestamp:i"},
	{"role=bashExecution", "command:s", "output:s", "exitCode:i", "cancelled:b", "truncated:b", "fullOutputPath:s", "excludeFromContext:b", "timestamp:i"},
	{"role=custom", "customType:s", "content:content", "display:b", "details:raw", "timestamp:i"},
	{"role=branchSummary", "summary:s", "fromId:s", "timestamp:i"},
	{"role=compactionSummary", "summary:s", "tokensBefore:i", "timestamp:i"},
	{"role=hookMessage", "content:content"},
}

func (g *genJSON) object(sh shape, depth int) {
	g.out = append(g.out, '{')
	g.ws()
	var members []string
	for i, m := range sh {
		if i == 0 || g.r.IntN(4) != 0 {
			members = append(members, m)
		}
	}
	if g.r.IntN(6) == 0 {
		members = append(members, "future:raw")
	}
	if g.r.IntN(4) == 0 {
		g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	}
	for i, m := range members {
		if i > 0 {
			g.out = append(g.out, ',')
			g.ws()
		}
		if name, val, fixed := strings.Cut(m, "="); fixed {
			g.out = append(g.out, `"`+name+`":"`+val+`"`...)
			continue
		}
		name, kind, _ := strings.Cut(m, ":")
		g.out = append(g.out, `"`+name+`"`...)
		g.ws()
		g.out = append(g.out, ':')
		g.ws()
		g.value(kind, depth)
		g.ws()
	}
	g.out = append(g.out, '}')
}

func TestFastDecodeGenerated(t *testing.T) {
	g := &genJSON{r: rand.New(rand.NewPCG(1, 2))}
	fast := 0
	const n = 3000
	for i := 0; i < n; i++ {
		g.out = g.out[:0]
		g.object(messageShapes[g.r.IntN(len(messageShapes))], 0)
		in := append([]byte(nil), g.out...)
		if d := sameDecode(in, i%10 == 0); d != "" {
			t.Fatalf("%s\n%s", in, d)
		}
		if role, _ := jsonx.PeekString(in, "role"); knownRole(role) {
			if _, ok := fastMessage(in, role, false); ok {
				fast++
			}
		}
	}
	t.Logf("%d generated messages agree; the fast path took %d", n, fast)
}
