package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// xssSession puts every payload everywhere content reaches the page: user
// and assistant markdown, thinking, tool names, arguments and outputs (read,
// bash, edit diffs, grep lists, extension tools), image blocks, compaction
// and branch summaries, custom messages, context edits, user shell commands,
// model names, labels and the session name.
func xssSession(t *testing.T, dir string) *session.Manager {
	t.Helper()
	s, err := session.Create("/x", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := sessionBuilder{t, s}
	js := func(v string) string { q, _ := json.Marshal(v); return string(q) }
	b.must(s.AppendSessionInfo(xssPayloads[0]))
	for i, p := range xssPayloads {
		id := b.user(p)
		b.must(s.AppendLabel(id, p))
		b.must(s.AppendModelChange(p, p))
		b.must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: p}, &llm.TextContent{Text: p},
			&llm.ImageContent{MimeType: "image/svg+xml", Data: "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"}, &llm.ImageContent{MimeType: "image/png", Data: `x" onerror="window.__xss=1`}},
			Provider: p, Model: p, StopReason: llm.StopError, ErrorMessage: p, Timestamp: 1}))
		b.call("r"+string(rune('a'+i)), "read", `{"path":`+js(p+".html")+`}`, p, false, "")
		b.call("b"+string(rune('a'+i)), "bash", `{"command":`+js(p)+`}`, p, i%2 == 0, "")
		b.call("e"+string(rune('a'+i)), "edit", `{"path":`+js(p)+`,"edits":[{"oldText":`+js(p)+`,"newText":`+js(p+"!")+`}]}`, p, false, `{"diff":`+js("- 1 "+p+"\n+ 1 "+p)+`}`)
		b.call("g"+string(rune('a'+i)), "grep", `{"pattern":`+js(p)+`}`, p+"\n"+p, false, "")
		b.call("x"+string(rune('a'+i)), p, `{`+js(p)+`:`+js(p)+`}`, p, false, "")
		b.must(s.AppendMessage(&llm.BashExecutionMessage{Command: p, Output: p, Timestamp: 1}))
		b.must(s.AppendCustomMessage(p, llm.StringContent(p), true, nil))
		b.must(s.AppendContextEdit(id, &llm.Content{Text: p, IsString: true}))
		b.must(s.AppendCompaction(p, id, 1000, nil, nil, false, nil))
		b.must(s.BranchWithSummary(id, p, nil, false, nil))
	}
	return s
}

// TestFragmentsAreInert checks every rendered fragment of the XSS session
// statically: nothing in them can run script or load anything.
func TestFragmentsAreInert(t *testing.T) {
	s := xssSession(t, t.TempDir())
	defer s.Close()
	page, err := HTML(s)
	if err != nil {
		t.Fatal(err)
	}
	frags, _, _ := pageParts(t, string(page))
	for i, f := range frags {
		if p := liveMarkup(f); p != "" {
			t.Errorf("fragment %d (%s): %s\n%s", i, s.Entries()[i].Type, p, f)
		}
	}
	// The page itself has exactly its four script elements.
	if n := strings.Count(strings.ToLower(string(page)), "<script"); n != 4 {
		t.Errorf("page has %d script tags, want 4", n)
	}
}

// unsafeJS lists what on the live page could run script, load a resource
// or navigate to script ("" = nothing).
const unsafeJS = `(function(){
	  var out = [];
	  if (window.__xss) out.push('payload ran');
	  if (window.__violations.length) out.push('csp: ' + window.__violations.join(', '));
	  if (document.scripts.length !== 4) out.push(document.scripts.length + ' scripts');
	  document.querySelectorAll('iframe,object,embed,svg,math,form,base,frame,frameset,link,body style,body meta').forEach(function(e){ out.push('element ' + e.tagName); });
	  document.querySelectorAll('*').forEach(function(e){
	    for (var k = 0; k < e.attributes.length; k++) {
	      var a = e.attributes[k], v = a.value.trim().toLowerCase();
	      if (/^on/i.test(a.name)) out.push(e.tagName + ' ' + a.name);
	      if (a.name === 'href' && !/^(https?:|mailto:|#)/.test(v)) out.push('href ' + v.slice(0, 40));
	      if (a.name === 'src' && e.id !== 'modal-image' && !/^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+\/=]*$/.test(v)) out.push('src ' + v.slice(0, 40));
	    }
	  });
	  return out.slice(0, 20).join('; ');
	})()`

// TestXSSCorpusInChromium loads the XSS session's export, renders every
// entry (all branches, thinking and tools expanded, search and filters
// used) and checks that no payload ran, nothing was blocked by the page's
// CSP (blocked means something tried to run or load), and the live DOM has
// no element or attribute that could.
func TestXSSCorpusInChromium(t *testing.T) {
	dir := t.TempDir()
	s := xssSession(t, dir)
	defer s.Close()
	out, err := Session(s, filepath.Join(dir, "xss.html"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, 1200, 1000)
	tb.open(out, "")
	// Visit every leaf (each payload left a branch), rendering the whole
	// path each time.
	tb.run(click(`.filter-btn[data-filter="all"]`), chromedp.KeyEvent("t"), chromedp.KeyEvent("o"))
	visited, tools := 0, 0
	for _, e := range s.Entries() {
		if len(s.Children(e.ID)) != 0 {
			continue
		}
		tb.do(`location.hash = '#` + e.ID + `'`)
		tb.waitFor(`document.querySelector('.tree-node.active') !== null && document.querySelector('.tree-node.active').dataset.i === '` + fmt.Sprint(indexOf(s, e.ID)) + `'`)
		// Scroll until the whole path is in the DOM.
		evalT[int](tb, `(async()=>{const c=document.getElementById('content');let n=-1;for(let k=0;k<200;k++){c.scrollTop=0;await new Promise(r=>requestAnimationFrame(r));c.scrollTop=1e9;await new Promise(r=>requestAnimationFrame(r));const m=document.querySelectorAll('#messages .entry').length;if(m===n)break;n=m;}return n;})()`, chromedp.EvalAwaitPromise)
		visited++
		tools = max(tools, tb.num(`document.querySelectorAll('#messages .tool-execution').length`))
		if p := tb.str(unsafeJS); p != "" {
			t.Fatalf("unsafe page on the branch of %s: %s", e.ID, p)
		}
	}
	if visited < len(xssPayloads) {
		t.Fatalf("visited %d leaves", visited)
	}
	tb.run(typeInto("#tree-search", "script"))
	tb.waitFor(`!document.getElementById('tree-status').textContent.startsWith('` + "0 /" + `')`)
	if tools < 6 { // read, bash, edit, grep, the extension tool and the user shell command
		t.Fatalf("at most %d tool blocks rendered on one branch", tools)
	}
	problems := tb.str(unsafeJS)
	if problems != "" {
		t.Errorf("unsafe page: %s", problems)
	}
	if tb.dialogs.Load() != 0 {
		t.Errorf("%d dialogs opened", tb.dialogs.Load())
	}
	if keep := os.Getenv("RELAY_EXPORT_XSS_PAGE"); keep != "" {
		b, _ := os.ReadFile(out)
		os.WriteFile(keep, b, 0o644)
	}
}

func indexOf(s *session.Manager, id string) int {
	for i, e := range s.Entries() {
		if e.ID == id {
			return i
		}
	}
	return -1
}
