package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/toolsearch"
)

type fakeTool struct {
	spec     llm.ToolSpec
	exposure tool.Exposure
	ns       string
}

func (f *fakeTool) Spec() llm.ToolSpec      { return f.spec }
func (f *fakeTool) Exposure() tool.Exposure { return f.exposure }
func (f *fakeTool) Namespace() string       { return f.ns }
func (f *fakeTool) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Text("ok")
}

func deferred(name, desc, schema string) *fakeTool {
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return &fakeTool{spec: llm.ToolSpec{Name: name, Description: desc, Parameters: json.RawMessage(schema)}, exposure: tool.ExposeDeferred}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"mcp__github__create_issue": {"mcp", "github", "create", "issue"},
		"readFile HTTPServer v2":    {"read", "file", "httpserver", "v2"},
		"  ":                        nil,
	} {
		if got := toolsearch.Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchRanks(t *testing.T) {
	docs := []toolsearch.Doc{
		{Name: "mcp__github__create_issue", Description: "Create a new issue in a GitHub repository"},
		{Name: "mcp__github__list_pulls", Description: "List pull requests"},
		{Name: "mcp__db__query", Description: "Run a SQL query against the database", Schema: json.RawMessage(`{"properties":{"sql":{"description":"the statement"}}}`)},
		{Name: "mcp__browser__screenshot", Description: "Take a screenshot of the page", Namespace: "browser"},
	}
	ix := toolsearch.NewIndex(docs)
	for _, c := range []struct {
		q    string
		want string
	}{
		{"create github issue", "mcp__github__create_issue"},
		{"pull requests", "mcp__github__list_pulls"},
		{"sql statement", "mcp__db__query"},
		{"screenshot", "mcp__browser__screenshot"},
		{"browser", "mcp__browser__screenshot"},
	} {
		hits := ix.Search(c.q, 3, nil)
		if len(hits) == 0 || hits[0].Doc.Name != c.want {
			t.Errorf("Search(%q) top = %v, want %s", c.q, hits, c.want)
		}
	}
	if hits := ix.Search("kubernetes", 3, nil); len(hits) != 0 {
		t.Errorf("unrelated query matched %v", hits)
	}
	hits := ix.Search("github", 0, func(d toolsearch.Doc) bool { return strings.Contains(d.Name, "pulls") })
	if len(hits) != 1 || hits[0].Doc.Name != "mcp__github__list_pulls" {
		t.Errorf("filtered search = %v", hits)
	}
}

type loadout struct{ active []string }

func (l *loadout) Names() []string { return append([]string(nil), l.active...) }
func (l *loadout) Set(n []string)  { l.active = append([]string(nil), n...) }

func TestToolSearchActivatesDeferredTools(t *testing.T) {
	reg, _ := tool.NewRegistry(
		&fakeTool{spec: llm.ToolSpec{Name: "read", Description: "Read a file issue"}},
		deferred("mcp__github__create_issue", "Create a GitHub issue", ""),
		deferred("mcp__github__close_issue", "Close a GitHub issue", ""),
		deferred("mcp__db__query", "SQL query", ""),
	)
	lo := &loadout{active: []string{"read", "tool_search"}}
	ts := toolsearch.New(reg, lo)
	res := ts.Execute(context.Background(), json.RawMessage(`{"query":"github issue","limit":1}`), nil)
	text := res.Content[0].(*llm.TextContent).Text
	if res.IsError || !strings.Contains(text, "mcp__github__") {
		t.Fatalf("result = %q", text)
	}
	if len(lo.active) != 3 || !strings.HasPrefix(lo.active[2], "mcp__github__") {
		t.Fatalf("active = %v, want one github tool added", lo.active)
	}
	// The built-in read tool is not deferred: never a match.
	if strings.Contains(text, "- read") {
		t.Errorf("direct tool listed: %q", text)
	}
	// Searching again does not add duplicates.
	ts.Execute(context.Background(), json.RawMessage(`{"query":"github issue","limit":1}`), nil)
	if len(lo.active) != 3 {
		t.Errorf("active = %v after repeat", lo.active)
	}
	for _, bad := range []string{`{"query":""}`, `{"query":"x","limit":0}`, `{"query":"x","limit":99}`, `[1]`} {
		if r := ts.Execute(context.Background(), json.RawMessage(bad), nil); !r.IsError {
			t.Errorf("args %s: want an error result", bad)
		}
	}
	if r := ts.Execute(context.Background(), json.RawMessage(`{"query":"kubernetes"}`), nil); r.IsError ||
		!strings.Contains(r.Content[0].(*llm.TextContent).Text, "No tools match") {
		t.Errorf("no-match result = %+v", r)
	}
}

func thousandDocs() []toolsearch.Doc {
	words := strings.Fields("create list delete update get search query issue pull request file page browser screenshot database table row column user team project repo branch commit deploy log metric alert")
	docs := make([]toolsearch.Doc, 1000)
	for i := range docs {
		w := func(k int) string { return words[(i*7+k*13)%len(words)] }
		docs[i] = toolsearch.Doc{
			Name:        fmt.Sprintf("mcp__server%d__%s_%s", i%20, w(1), w(2)),
			Description: fmt.Sprintf("%s the %s of a %s in the %s. Returns %s and %s.", w(1), w(2), w(3), w(4), w(5), w(6)),
			Schema:      json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"%s_id":{"type":"string","description":"The %s"},"%s":{"type":"integer"}}}`, w(3), w(7), w(8))),
		}
	}
	return docs
}

// BenchmarkSearch1000 is one tool_search query over 1,000 tools with the
// index cached (the budget: 5 ms).
func BenchmarkSearch1000(b *testing.B) {
	var c toolsearch.Cache
	docs := thousandDocs()
	c.Get(docs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(c.Get(docs).Search("create issue in repo branch", 8, nil)) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkIndex1000 builds the index of 1,000 tools (the first search
// after the tool set changes).
func BenchmarkIndex1000(b *testing.B) {
	docs := thousandDocs()
	for i := 0; i < b.N; i++ {
		toolsearch.NewIndex(docs)
	}
}
