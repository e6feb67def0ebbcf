package layaauto

import (
	"slices"

	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/toolsearch"
)

// laya.toolRetrieval: N > 0 activates up to N deferred tools per request
// whose name, description and parameters match the request best (the BM25
// index tool_search and codemode use). They are put back before the next
// request is planned, unless the active set changed elsewhere meanwhile.

// retrieved is what retrieval changed for the request under way.
type retrieved struct {
	before, applied []string
}

// retrieveTools activates the deferred tools the request matches.
func (d *Driver) retrieveTools(request string) []string {
	limit := 0
	if d.opts.Settings != nil {
		limit = d.opts.Settings.Laya.ToolRetrieval
	}
	if limit <= 0 || d.opts.Tools == nil {
		return nil
	}
	active := d.rt.ActiveTools()
	var docs []toolsearch.Doc
	for _, n := range d.opts.Tools.Names() {
		if t, ok := d.opts.Tools.Get(n); ok && tool.ExposureOf(t) == tool.ExposeDeferred && !slices.Contains(active, n) {
			docs = append(docs, toolsearch.DocOf(t))
		}
	}
	if len(docs) == 0 {
		return nil
	}
	hits := d.toolIndex.Get(docs).Search(request, limit, nil)
	if len(hits) == 0 {
		return nil
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.Doc.Name)
	}
	applied := append(slices.Clone(active), names...)
	d.rt.SetActiveTools(applied)
	d.mu.Lock()
	d.retrieved = &retrieved{before: active, applied: applied}
	d.mu.Unlock()
	return names
}

// restoreRetrieved puts back the tool set retrieval changed, when nothing
// else changed it since.
func (d *Driver) restoreRetrieved() {
	d.mu.Lock()
	r := d.retrieved
	d.retrieved = nil
	d.mu.Unlock()
	if r != nil && slices.Equal(d.rt.ActiveTools(), r.applied) {
		d.rt.SetActiveTools(r.before)
	}
}
