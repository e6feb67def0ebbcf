package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// Context elision parameters the settings do not expose.
const (
	minElideChars    = 1500 // smaller results cost little and are never elided
	imageChars       = 4000 // character weight of one image block
	maxDigestEntries = 30
)

// ContextStats describe what the context pillar kept out of the last request.
type ContextStats struct {
	ElidedResults int `json:"elidedResults"`
	// ElidedChars is the characters removed net of the stubs that replace them.
	ElidedChars int `json:"elidedChars"`
	Batches     int `json:"batches"`
}

type digestEntry struct {
	tool, call string
	ok, stale  bool
}

type elision struct {
	stats  ContextStats
	stubs  map[int]string // message index -> stub text
	digest []digestEntry
}

// elide decides which tool results a request replaces by stubs.
//
// The decision is a pure function of the message list, so it needs no state
// to survive a resume and is the same on every request built from the same
// branch. Tool results are counted from the newest; all but keepRecent are
// aged; aged results of at least minElideChars are large. The oldest
// floor(large/batchSize)*batchSize large results are elided. Since messages
// are only appended, the elided set grows only when another batchSize large
// results have aged out: between those boundaries every request carries a
// byte-identical prefix and the provider's prompt cache keeps hitting.
func elide(msgs []llm.Message, keepRecent, batchSize int, memo *requestMemo) elision {
	keepRecent = max(1, keepRecent)
	batchSize = max(1, batchSize)
	var results []int // message indexes of tool results
	calls := map[string]*llm.ToolCall{}
	for i, m := range msgs {
		switch m := m.(type) {
		case *llm.ToolResultMessage:
			results = append(results, i)
		case *llm.AssistantMessage:
			for _, tc := range m.ToolCalls() {
				calls[tc.ID] = tc
			}
		}
	}
	aged := len(results) - keepRecent
	// Sizes on all cores: a resumed session's first request counts the
	// characters of thousands of results (memo.size is safe for concurrent
	// use and pure).
	sizes := make([]int, max(aged, 0))
	count := func(p int) { sizes[p] = memo.size(msgs[results[p]].(*llm.ToolResultMessage)) }
	if aged >= parallelMin {
		parallelEach(aged, count)
	} else {
		for p := range aged {
			count(p)
		}
	}
	var large []int // positions in results
	for p := 0; p < aged; p++ {
		if sizes[p] >= minElideChars {
			large = append(large, p)
		}
	}
	n := len(large) / batchSize * batchSize
	if n == 0 {
		return elision{}
	}
	e := elision{stubs: make(map[int]string, n)}
	e.stats.Batches = n / batchSize
	for k, p := range large[:n] {
		// Staleness is judged up to the result that completed this batch, not
		// up to now, so a stub never changes once sent.
		last := large[(k/batchSize+1)*batchSize-1]
		horizon := results[last+keepRecent]
		idx := results[p]
		tr := msgs[idx].(*llm.ToolResultMessage)
		size := sizes[p]
		call, stale := describeCall(calls[tr.ToolCallID], msgs, idx, horizon, calls, memo.describe)
		stub := fmt.Sprintf("[harness:context] Result elided to keep context focused: %s %s (%d chars, %s).",
			tr.ToolName, call, size, okText(!tr.IsError))
		if stale {
			stub += " The file was changed later, so this content was stale."
		}
		stub += " Re-run the call if you need the content."
		e.stubs[idx] = stub
		e.digest = append(e.digest, digestEntry{tool: tr.ToolName, call: call, ok: !tr.IsError, stale: stale})
		e.stats.ElidedResults++
		e.stats.ElidedChars += size - chars(stub)
	}
	return e
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}

func resultChars(m *llm.ToolResultMessage) int {
	n := 0
	for _, b := range m.Content {
		switch b := b.(type) {
		case *llm.TextContent:
			n += chars(b.Text)
		case *llm.ImageContent:
			n += imageChars
		}
	}
	return n
}

// describeCall names a call for stubs and the digest (backticked command,
// else paths, else JSON arguments) and reports whether a read result went
// stale: a later successful call, up to horizon, mutated one of its paths.
func describeCall(tc *llm.ToolCall, msgs []llm.Message, idx, horizon int, calls map[string]*llm.ToolCall, classify func(*llm.ToolCall) Effect) (string, bool) {
	if tc == nil {
		return "", false
	}
	e := classify(tc)
	var call string
	switch {
	case e.Command != "":
		call = "`" + clip(e.Command, 100) + "`"
	case len(e.Paths) > 0:
		call = strings.Join(e.Paths, ", ")
	default:
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		call = clip(args, 100)
	}
	if e.Kind != EffectRead || len(e.Paths) == 0 {
		return call, false
	}
	for j := idx + 1; j <= horizon && j < len(msgs); j++ {
		later, ok := msgs[j].(*llm.ToolResultMessage)
		if !ok || later.IsError {
			continue
		}
		ltc := calls[later.ToolCallID]
		if ltc == nil {
			continue
		}
		le := classify(ltc)
		if !le.Kind.IsMutation() {
			continue
		}
		for _, p := range le.Paths {
			for _, q := range e.Paths {
				if p == q {
					return call, true
				}
			}
		}
	}
	return call, false
}

// classifyPlain is the default classification, for a nil memo.
func classifyPlain(tc *llm.ToolCall) Effect { return Classify(tc.Name, tc.Arguments, nil) }

// requestMemo caches, by tool call id, what request building computes for
// the same calls and results on every request: classifications and result
// sizes. A nil memo computes everything afresh.
type requestMemo struct {
	classifyFn func(*llm.ToolCall) Effect // nil: classifyPlain
	// customClassifier: classifyFn may classify shell tools its own way.
	customClassifier bool
	effects          sync.Map // id -> effectEntry
	described        sync.Map // id -> effectEntry (describe)
	sizes            sync.Map // id -> sizeEntry
}

// describe is classify for describing calls (stubs, digest, staleness),
// which use a call's command, its paths, whether it reads and whether a
// call with paths mutates: the kind of a shell command without paths is
// never looked at, so such a call is not run through the gate's shell
// parse (a resumed session's first request describes thousands).
func (m *requestMemo) describe(tc *llm.ToolCall) Effect {
	if m == nil || m.customClassifier || !shellTools[strings.ToLower(tc.Name)] {
		return m.classify(tc)
	}
	if v, ok := m.described.Load(tc.ID); ok {
		if e := v.(effectEntry); e.name == tc.Name && e.args == string(tc.Arguments) {
			return e.effect
		}
	}
	var args map[string]any
	if len(tc.Arguments) > 0 {
		_ = json.Unmarshal(tc.Arguments, &args)
	}
	if stringArg(args, "path", "file_path", "filePath", "file", "notebook_path") != "" {
		return m.classify(tc)
	}
	// Kind stands for "not read": no shell command is.
	e := Effect{Kind: EffectExecute, Command: stringArg(args, "command", "cmd", "script")}
	m.described.Store(tc.ID, effectEntry{tc.Name, string(tc.Arguments), e})
	return e
}

type effectEntry struct {
	name, args string
	effect     Effect
}

type sizeEntry struct{ bytes, blocks, chars int }

func (m *requestMemo) classify(tc *llm.ToolCall) Effect {
	if m == nil {
		return classifyPlain(tc)
	}
	if v, ok := m.effects.Load(tc.ID); ok {
		if e := v.(effectEntry); e.name == tc.Name && e.args == string(tc.Arguments) {
			return e.effect
		}
	}
	fn := m.classifyFn
	if fn == nil {
		fn = classifyPlain
	}
	e := fn(tc)
	m.effects.Store(tc.ID, effectEntry{tc.Name, string(tc.Arguments), e})
	return e
}

// size is resultChars, remembered per tool call; the byte length and block
// count guard against a different result under a reused id.
func (m *requestMemo) size(tr *llm.ToolResultMessage) int {
	if m == nil {
		return resultChars(tr)
	}
	bytes := 0
	for _, b := range tr.Content {
		if t, ok := b.(*llm.TextContent); ok {
			bytes += len(t.Text)
		}
	}
	if v, ok := m.sizes.Load(tr.ToolCallID); ok {
		if e := v.(sizeEntry); e.bytes == bytes && e.blocks == len(tr.Content) {
			return e.chars
		}
	}
	n := resultChars(tr)
	m.sizes.Store(tr.ToolCallID, sizeEntry{bytes, len(tr.Content), n})
	return n
}

// renderDigest is the progress digest of elided calls, or "".
func (e elision) renderDigest() string {
	if len(e.digest) == 0 {
		return ""
	}
	shown := e.digest
	if len(shown) > maxDigestEntries {
		shown = shown[len(shown)-maxDigestEntries:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Earlier tool results elided from context (%d calls). Progress so far:", len(e.digest))
	if omitted := len(e.digest) - len(shown); omitted > 0 {
		fmt.Fprintf(&b, "\n- ... %d earlier calls", omitted)
	}
	for _, d := range shown {
		fmt.Fprintf(&b, "\n- %s %s: %s", d.tool, d.call, okText(d.ok))
		if d.stale {
			b.WriteString(" (file changed later)")
		}
	}
	return b.String()
}

// apply returns msgs with the elided results replaced by their stubs. The
// input slice and messages are never modified.
func (e elision) apply(msgs []llm.Message) []llm.Message {
	if len(e.stubs) == 0 {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	for idx, stub := range e.stubs {
		cp := *out[idx].(*llm.ToolResultMessage)
		cp.Content = llm.Blocks{&llm.TextContent{Text: stub}}
		out[idx] = &cp
	}
	return out
}

// appendState adds the harness state as an extra text block to the last
// message when it is a user or tool-result message: the tail is the most
// salient place for the model and the cheapest for the prompt cache.
func appendState(msgs []llm.Message, state string, copied bool) []llm.Message {
	if len(msgs) == 0 || state == "" {
		return msgs
	}
	// Volatile: clients keep this block out of cached prefixes, since the
	// next request carries it on a later message.
	block := &llm.TextContent{Text: "<harness_state>\n" + state + "\n</harness_state>", Volatile: true}
	var repl llm.Message
	switch m := msgs[len(msgs)-1].(type) {
	case *llm.UserMessage:
		cp := *m
		blocks := append(llm.Blocks(nil), m.Content.AsBlocks()...)
		cp.Content = llm.BlockContent(append(blocks, block)...)
		repl = &cp
	case *llm.ToolResultMessage:
		cp := *m
		cp.Content = append(append(llm.Blocks(nil), m.Content...), block)
		repl = &cp
	default:
		return msgs
	}
	if !copied {
		msgs = append([]llm.Message(nil), msgs...)
	}
	msgs[len(msgs)-1] = repl
	return msgs
}
