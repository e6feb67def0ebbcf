package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// conversation builds a user prompt followed by n read calls, each with its
// own assistant message and a result of size chars.
func conversation(n int, size func(i int) int) []llm.Message {
	msgs := []llm.Message{user("Refactor the storage layer")}
	for i := range n {
		tc := toolCall(fmt.Sprintf("t%d", i), "read", map[string]any{"path": fmt.Sprintf("f%d.go", i)})
		msgs = append(msgs, calling(tc), result(tc, strings.Repeat("x", size(i)), false))
	}
	return msgs
}

func marshal(t *testing.T, msgs []llm.Message) []string {
	t.Helper()
	out := make([]string, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

func TestContextElisionFortyResults(t *testing.T) {
	c := newCore(t, func(cfg *Config) { cfg.Alignment, cfg.Evidence = false, false })
	msgs := conversation(40, func(int) int { return 2000 })
	before := marshal(t, msgs)
	out := c.PrepareRequest(msgs)

	if after := marshal(t, msgs); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatal("input messages modified")
	}
	// 40 results, 6 kept: 34 aged and large -> 5 batches of 6 = 30 elided.
	stubs, netChars := 0, 0
	for i, m := range out {
		tr, ok := m.(*llm.ToolResultMessage)
		if !ok {
			continue
		}
		text := tr.Content.PlainText()
		if strings.HasPrefix(text, "[harness:context]") {
			stubs++
			netChars += 2000 - chars(text)
			if i > 2*30 {
				t.Fatalf("message %d elided beyond the first 30 results", i)
			}
		}
	}
	if stubs != 30 {
		t.Fatalf("%d stubs, want 30", stubs)
	}
	first := out[2].(*llm.ToolResultMessage).Content[0].(*llm.TextContent).Text
	if first != "[harness:context] Result elided to keep context focused: read f0.go (2000 chars, ok). Re-run the call if you need the content." {
		t.Fatalf("stub %q", first)
	}
	st := c.Status().Context
	if st.ElidedResults != 30 || st.Batches != 5 || st.ElidedChars != netChars {
		t.Fatalf("stats %+v", st)
	}
	// The digest is restated in the state appended to the last message.
	last := out[len(out)-1].(*llm.ToolResultMessage)
	state := last.Content[len(last.Content)-1].(*llm.TextContent).Text
	if !strings.Contains(state, "Earlier tool results elided from context (30 calls). Progress so far:\n- read f0.go: ok\n") {
		t.Fatalf("digest missing:\n%s", state)
	}
	// The newest results stay verbatim.
	if text := out[len(out)-1].(*llm.ToolResultMessage).Content[0].(*llm.TextContent).Text; len(text) != 2000 {
		t.Fatal("newest result elided")
	}
}

// stable marshals msgs without their volatile blocks: what a provider's
// prompt cache may reuse.
func stable(t *testing.T, msgs []llm.Message) []string {
	t.Helper()
	cp := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		switch m := m.(type) {
		case *llm.ToolResultMessage:
			c := *m
			c.Content = nil
			for _, b := range m.Content {
				if tc, ok := b.(*llm.TextContent); !ok || !tc.Volatile {
					c.Content = append(c.Content, b)
				}
			}
			cp[i] = &c
		case *llm.UserMessage:
			c := *m
			var bs llm.Blocks
			for _, b := range m.Content.AsBlocks() {
				if tc, ok := b.(*llm.TextContent); !ok || !tc.Volatile {
					bs = append(bs, b)
				}
			}
			if len(bs) != len(m.Content.AsBlocks()) {
				c.Content = llm.BlockContent(bs...)
			}
			cp[i] = &c
		default:
			cp[i] = m
		}
	}
	return marshal(t, cp)
}

func TestContextElisionCacheStable(t *testing.T) {
	c := newCore(t, func(cfg *Config) {
		cfg.ContextKeepRecent, cfg.ContextBatchSize = 3, 4
	})
	c.OnUserMessage("Refactor the storage layer. Never change the schema.", true)
	all := conversation(30, func(i int) int {
		if i%5 == 4 {
			return 100 // small results are never elided
		}
		return 1600
	})
	var prev []string
	var prevElided int
	changes := 0
	for n := 1; n <= 30; n++ {
		msgs := all[:1+2*n]
		req := c.PrepareRequest(msgs)
		if last := req[len(req)-1].(*llm.ToolResultMessage); !last.Content[len(last.Content)-1].(*llm.TextContent).Volatile {
			t.Fatalf("n=%d: no volatile state block", n)
		}
		out := stable(t, req)
		elided := c.Status().Context.ElidedResults
		if elided%4 != 0 {
			t.Fatalf("n=%d: %d elided, not a multiple of the batch size", n, elided)
		}
		if prev != nil {
			// Everything before the previous request's last message is
			// byte-identical unless a batch boundary was crossed.
			same := true
			for i := 0; i < len(prev); i++ {
				if out[i] != prev[i] {
					same = false
				}
			}
			if elided == prevElided && !same {
				t.Fatalf("n=%d: prefix changed without a new batch", n)
			}
			if elided != prevElided {
				changes++
				if same {
					t.Fatalf("n=%d: batch did not change the prefix", n)
				}
			}
		}
		prev, prevElided = out, elided
	}
	// 30 results, 27 aged, 22 of them large -> 20 elided in 5 batches.
	if prevElided != 20 || changes != 5 {
		t.Fatalf("elided %d in %d changes", prevElided, changes)
	}
}

func TestContextElisionStaleAndDescribe(t *testing.T) {
	big := strings.Repeat("y", 1500)
	read := toolCall("r", "read", map[string]any{"path": "a.go"})
	cmd := bashCall("b", "go test ./... -run TestVeryLongNameThatKeepsGoingAndGoingAndGoingAndGoingAndGoingAndGoingAndGoingAndGoing")
	mcp := toolCall("m", "mcp_fetch", map[string]any{"url": "https://example.com"})
	edit := toolCall("e", "edit", map[string]any{"path": "a.go"})
	msgs := []llm.Message{user("go"),
		calling(read), result(read, big, false),
		calling(cmd), result(cmd, big, true),
		calling(mcp), result(mcp, big, false),
		calling(edit), result(edit, "ok", false),
	}
	e := elide(msgs, 1, 3, nil)
	if e.stats.ElidedResults != 3 {
		t.Fatalf("stats %+v", e.stats)
	}
	want := []string{
		"[harness:context] Result elided to keep context focused: read a.go (1500 chars, ok). The file was changed later, so this content was stale. Re-run the call if you need the content.",
		"[harness:context] Result elided to keep context focused: bash `go test ./... -run TestVeryLongNameThatKeepsGoingAndGoingAndGoingAndGoingAndGoingAndGoingAndGoing...` (1500 chars, error). Re-run the call if you need the content.",
		`[harness:context] Result elided to keep context focused: mcp_fetch {"url":"https://example.com"} (1500 chars, ok). Re-run the call if you need the content.`,
	}
	for i, idx := range []int{2, 4, 6} {
		if e.stubs[idx] != want[i] {
			t.Errorf("stub %d:\n%s\nwant:\n%s", idx, e.stubs[idx], want[i])
		}
	}
	d := e.renderDigest()
	if !strings.Contains(d, "- read a.go: ok (file changed later)\n- bash `go test") || !strings.HasSuffix(d, `- mcp_fetch {"url":"https://example.com"}: ok`) {
		t.Fatalf("digest:\n%s", d)
	}
}

func TestContextDigestCap(t *testing.T) {
	msgs := conversation(45, func(int) int { return 1500 })
	e := elide(msgs, 1, 1, nil)
	d := e.renderDigest()
	if !strings.HasPrefix(d, "Earlier tool results elided from context (44 calls). Progress so far:\n- ... 14 earlier calls\n- read f14.go: ok") {
		t.Fatalf("digest head:\n%s", d[:200])
	}
	if strings.Count(d, "\n- read") != 30 {
		t.Fatal("digest not capped at 30 entries")
	}
}

func TestContextImagesAndDisabled(t *testing.T) {
	img := toolCall("i", "read", map[string]any{"path": "shot.png"})
	msgs := []llm.Message{user("look"), calling(img),
		&llm.ToolResultMessage{ToolCallID: "i", ToolName: "read", Content: llm.Blocks{&llm.ImageContent{Data: "AAAA", MimeType: "image/png"}}},
	}
	for i := range 2 {
		tc := toolCall(fmt.Sprint(i), "ls", nil)
		msgs = append(msgs, calling(tc), result(tc, "x", false))
	}
	if e := elide(msgs, 2, 1, nil); e.stats.ElidedResults != 1 || !strings.Contains(e.stubs[2], "(4000 chars, ok)") {
		t.Fatalf("image result: %+v %v", e.stats, e.stubs)
	}
	c := newCore(t, func(cfg *Config) { cfg.Context, cfg.Alignment, cfg.Evidence = false, false, false })
	big := conversation(20, func(int) int { return 5000 })
	out := c.PrepareRequest(big)
	if &out[0] != &big[0] || c.Status().Context != nil {
		t.Fatal("context off still elides")
	}
}

// Describing calls for stubs skips the gate's shell parse but names and
// dates them exactly as the full classification does.
func TestDescribeMatchesClassify(t *testing.T) {
	calls := []*llm.ToolCall{
		toolCall("r1", "read", map[string]any{"path": "a.go"}),
		bashCall("b1", "rm -rf build && go test ./..."),
		toolCall("b2", "bash", map[string]any{"command": "sed -i s/a/b/ a.go", "path": "a.go"}),
		toolCall("e1", "edit", map[string]any{"path": "a.go"}),
		toolCall("r2", "read", map[string]any{"path": "a.go"}),
		bashCall("b3", "x=rm; $x -rf build"),
		toolCall("p1", "powershell", map[string]any{"command": "Remove-Item a -Recurse"}),
		toolCall("m1", "mcp__fs__write", map[string]any{"path": "a.go"}),
		{ID: "j1", Name: "bash", Arguments: []byte(`not json`)},
	}
	var msgs []llm.Message
	byID := map[string]*llm.ToolCall{}
	for _, tc := range calls {
		byID[tc.ID] = tc
		msgs = append(msgs, calling(tc), result(tc, "out", false))
	}
	for _, custom := range []bool{false, true} {
		c := newCore(t, func(cfg *Config) {
			if custom {
				cfg.ClassifyTool = func(name string, _ json.RawMessage) (Effect, bool) {
					return Effect{Kind: EffectWrite, Paths: []string{"a.go"}}, name == "bash"
				}
			}
		})
		for i, m := range msgs {
			tr, ok := m.(*llm.ToolResultMessage)
			if !ok {
				continue
			}
			tc := byID[tr.ToolCallID]
			want, wantStale := describeCall(tc, msgs, i, len(msgs), byID, c.classify)
			got, gotStale := describeCall(tc, msgs, i, len(msgs), byID, c.memo.describe)
			if got != want || gotStale != wantStale {
				t.Errorf("custom=%v %s: describe %q stale=%v, classify %q stale=%v", custom, tc.ID, got, gotStale, want, wantStale)
			}
		}
	}
}
