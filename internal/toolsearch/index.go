// Package toolsearch finds tools by relevance: a BM25 index over each
// tool's name, description and parameter schema text, and the tool_search
// tool that finds deferred tools and activates them for the session.
// codemode's searchTools() ranks with the same index.
package toolsearch

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/relay-agent/relay/internal/tool"
)

// BM25 parameters: the usual defaults.
const (
	k1 = 1.2
	b  = 0.75
	// nameWeight repeats name terms so a query naming a tool ranks it above
	// tools that only mention the word.
	nameWeight = 3
)

// Doc is one searchable tool.
type Doc struct {
	Name        string
	Namespace   string
	Description string
	Schema      json.RawMessage
}

// DocOf returns t's document.
func DocOf(t tool.Tool) Doc {
	s := t.Spec()
	return Doc{Name: s.Name, Namespace: tool.NamespaceOf(t), Description: s.Description, Schema: s.Parameters}
}

type posting struct {
	doc int32
	tf  float32
}

// Index is an immutable BM25 index; safe for concurrent Search.
type Index struct {
	docs     []Doc
	lens     []float32
	avgLen   float64
	postings map[string][]posting
}

// Hit is one ranked document.
type Hit struct {
	Doc   Doc
	Index int // position in the indexed slice
	Score float64
}

// NewIndex indexes docs.
func NewIndex(docs []Doc) *Index {
	ix := &Index{docs: docs, lens: make([]float32, len(docs)), postings: map[string][]posting{}}
	var total float64
	counts := map[string]int{}
	for i, d := range docs {
		clear(counts)
		n := 0
		add := func(terms []string, w int) {
			for _, t := range terms {
				counts[t] += w
				n += w
			}
		}
		add(Tokenize(d.Name), nameWeight)
		add(Tokenize(d.Namespace), 1)
		add(Tokenize(d.Description), 1)
		add(Tokenize(schemaText(d.Schema)), 1)
		ix.lens[i] = float32(n)
		total += float64(n)
		for t, c := range counts {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(i), tf: float32(c)})
		}
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
	return ix
}

// Len is the number of indexed documents.
func (ix *Index) Len() int { return len(ix.docs) }

// Search ranks the documents for query, best first, keeping at most limit
// (limit <= 0 means all) and only documents keep accepts (nil keeps all).
// Documents that match no query term are left out.
func (ix *Index) Search(query string, limit int, keep func(Doc) bool) []Hit {
	terms := Tokenize(query)
	if len(terms) == 0 || len(ix.docs) == 0 {
		return nil
	}
	scores := map[int32]float64{}
	seen := map[string]bool{}
	n := float64(len(ix.docs))
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := 1 - b + b*float64(ix.lens[p.doc])/ix.avgLen
			scores[p.doc] += idf * tf * (k1 + 1) / (tf + k1*norm)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for i, s := range scores {
		if keep != nil && !keep(ix.docs[i]) {
			continue
		}
		hits = append(hits, Hit{Doc: ix.docs[i], Index: int(i), Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Index < hits[j].Index
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// Tokenize splits s into lower-case terms at non-alphanumerics and at
// camelCase boundaries ("readFile" -> "read", "file").
func Tokenize(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// schemaText collects a JSON Schema's property names, descriptions, titles
// and enum strings, bounded so a huge schema cannot dominate the index.
func schemaText(raw json.RawMessage) string {
	const maxChars = 8 << 10
	if len(raw) == 0 || len(raw) > 1<<20 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var sb strings.Builder
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 8 || sb.Len() > maxChars {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "description", "title":
					if s, ok := c.(string); ok {
						sb.WriteString(s)
						sb.WriteByte(' ')
					}
				case "properties":
					if props, ok := c.(map[string]any); ok {
						for name, p := range props {
							sb.WriteString(name)
							sb.WriteByte(' ')
							walk(p, depth+1)
						}
					}
				case "enum":
					if list, ok := c.([]any); ok {
						for _, e := range list {
							if s, ok := e.(string); ok {
								sb.WriteString(s)
								sb.WriteByte(' ')
							}
						}
					}
				default:
					walk(c, depth+1)
				}
			}
		case []any:
			for _, c := range x {
				walk(c, depth+1)
			}
		}
	}
	walk(v, 0)
	return sb.String()
}

// Cache keeps the index of the last document set and rebuilds it only when
// the set changes (an MCP server connecting, a tool registered).
type Cache struct {
	mu  sync.Mutex
	sum uint64
	ix  *Index
}

// Get returns the index of docs, reusing the previous one when the names,
// descriptions and schemas are the same.
func (c *Cache) Get(docs []Doc) *Index {
	h := fnv.New64a()
	for _, d := range docs {
		h.Write([]byte(d.Name))
		h.Write([]byte{0})
		h.Write([]byte(d.Namespace))
		h.Write([]byte{0})
		h.Write([]byte(d.Description))
		h.Write([]byte{0})
		h.Write(d.Schema)
		h.Write([]byte{1})
	}
	sum := h.Sum64()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix == nil || c.sum != sum {
		c.ix, c.sum = NewIndex(docs), sum
	}
	return c.ix
}
