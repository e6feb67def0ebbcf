package layaauto

import (
	"slices"
	"time"

	"github.com/relay-agent/relay/internal/laya"

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

// retrievalStats is what laya.toolRetrievalTelemetry counts for the
// request under way.
type retrievalStats struct {
	candidates int
	names      []string
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
	active := d.opts.Active.Names()
	var docs []toolsearch.Doc
	for _, n := range d.opts.Tools.Names() {
		if t, ok := d.opts.Tools.Get(n); ok && tool.ExposureOf(t) == tool.ExposeDeferred && !slices.Contains(active, n) {
			docs = append(docs, toolsearch.DocOf(t))
		}
	}
	if len(docs) == 0 {
		d.mu.Lock()
		d.retrievalStats = &retrievalStats{}
		d.mu.Unlock()
		return nil
	}
	hits := d.toolIndex.Get(docs).Search(request, limit, nil)
	var names []string
	for _, h := range hits {
		names = append(names, h.Doc.Name)
	}
	d.mu.Lock()
	d.retrievalStats = &retrievalStats{candidates: len(docs), names: names}
	d.mu.Unlock()
	if len(hits) == 0 {
		return nil
	}
	applied := append(slices.Clone(active), names...)
	d.opts.Active.Set(applied)
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
	if r != nil && slices.Equal(d.opts.Active.Names(), r.applied) {
		d.opts.Active.Set(r.before)
	}
}

// recordRetrieval appends the request's retrieval counts to
// tool-retrieval.jsonl when laya.toolRetrievalTelemetry is on (and
// laya.telemetry is not off); invoked are the tools the run called.
func (d *Driver) recordRetrieval(invoked []string) {
	d.mu.Lock()
	rs := d.retrievalStats
	d.retrievalStats = nil
	d.mu.Unlock()
	st := d.opts.Settings
	if rs == nil || st == nil || !st.Laya.ToolRetrievalTelemetry || !st.Laya.Telemetry {
		return
	}
	rec := laya.EvaluateToolRetrieval(rs.candidates, rs.names, invoked)
	rec.Timestamp = d.opts.Now().UTC().Format(time.RFC3339Nano)
	_ = laya.AppendToolRetrieval(laya.ToolRetrievalPath(d.router.Config().Home), rec)
}
