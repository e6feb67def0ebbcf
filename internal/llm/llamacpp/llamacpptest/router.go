package llamacpptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// The router's model management as llama-server answers it: POST
// /models/load and /models/unload {"model"} answer at once and the state
// moves on in /models ("loading" for LoadPolls lists, then "loaded"); POST
// /models {"model": "owner/repo:quant"} starts a download that reports
// status "downloading" with per-file progress for DownloadPolls lists,
// then lists the model "unloaded".

// managed is a model whose state the fake moves on as /models is read.
type managed struct {
	status   string // target state
	polls    int    // /models lists left before status is reached
	total    int
	failed   bool
	download bool
}

// LoadPolls and DownloadPolls are how many /models lists a load or a
// download takes.
const (
	LoadPolls     = 2
	DownloadPolls = 3
	downloadBytes = 600 << 20
)

// RefuseLoad makes a load of id fail (status.failed, exit_code 1), as a
// router does for a model that does not fit in memory.
func (s *Server) RefuseLoad(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused == nil {
		s.refused = map[string]bool{}
	}
	s.refused[id] = true
}

// catalog is Models with the states management changed, advancing each
// pending change by one list.
func (s *Server) catalog() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Model
	seen := map[string]bool{}
	for _, m := range s.Models {
		seen[m.ID] = true
		out = append(out, m)
	}
	var extra []string
	for id := range s.manage {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		out = append(out, Model{ID: id})
	}
	for i := range out {
		mg := s.manage[out[i].ID]
		if mg == nil {
			continue
		}
		switch {
		case mg.polls > 0 && mg.download:
			out[i].Status = "downloading"
		case mg.polls > 0:
			out[i].Status = StatusLoading
		default:
			out[i].Status = mg.status
		}
	}
	return out
}

// StatusLoading is the router's state while a model loads.
const StatusLoading = "loading"

// statusExtras adds progress, failure and exit code to a /models status,
// and advances the pending change.
func (s *Server) statusExtras(id string, status map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mg := s.manage[id]
	if mg == nil {
		return
	}
	if mg.polls > 0 {
		if mg.download {
			done := (mg.total - mg.polls + 1) * downloadBytes / (mg.total + 1)
			status["progress"] = map[string]any{id + ".gguf": map[string]any{"done": done, "total": downloadBytes}}
		}
		mg.polls--
		return
	}
	if mg.failed {
		status["failed"] = true
		status["exit_code"] = 1
	}
}

func readModel(w http.ResponseWriter, r *http.Request) (string, bool) {
	var body struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil || body.Model == "" {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"\"model\" is required","type":"invalid_request_error"}}`)
		return "", false
	}
	return body.Model, true
}

func (s *Server) known(id string) bool {
	for _, m := range s.Models {
		if m.ID == id {
			return true
		}
	}
	_, ok := s.manage[id]
	return ok
}

func (s *Server) loadUnload(w http.ResponseWriter, r *http.Request) {
	id, ok := readModel(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.known(id) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"model %q not found","type":"invalid_request_error"}}`, id)
		return
	}
	if s.manage == nil {
		s.manage = map[string]*managed{}
	}
	if r.URL.Path == "/models/load" {
		if s.refused[id] {
			s.manage[id] = &managed{status: "unloaded", polls: 1, failed: true}
		} else {
			s.manage[id] = &managed{status: "loaded", polls: LoadPolls}
		}
	} else {
		s.manage[id] = &managed{status: "unloaded"}
	}
	writeJSON(w, map[string]any{"success": true})
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	id, ok := readModel(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.manage == nil {
		s.manage = map[string]*managed{}
	}
	s.manage[id] = &managed{status: "unloaded", polls: DownloadPolls, total: DownloadPolls, download: true}
	writeJSON(w, map[string]any{"success": true})
}
