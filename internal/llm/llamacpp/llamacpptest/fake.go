// Package llamacpptest is a fake llama-server for tests: the router's
// /models list, /v1/models, /props and /v1/chat/completions streaming in
// llama.cpp's own chunk shapes (reasoning_content deltas, tool calls
// split across chunks, usage and timings on the last chunk); the
// classification endpoints /tokenize, /apply-template and /completion
// (classify.go); and the router's model management, /models/load,
// /models/unload and download by POST /models (router.go).
package llamacpptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Model is one model the fake serves.
type Model struct {
	ID string
	// Status is the router state ("loaded", "unloaded", "sleeping"); ""
	// with Router off.
	Status string
	// CtxSize is passed as "-c" in the router's status.args, or reported
	// as meta.n_ctx by a single-model server; 0 for neither.
	CtxSize int
	// ChatTemplate is what /props reports.
	ChatTemplate string
}

// Turn is one scripted answer of /v1/chat/completions.
type Turn struct {
	Reasoning string
	Text      string
	// ToolCalls are (name, JSON arguments) pairs; arguments are streamed
	// in two pieces, as llama.cpp does.
	ToolCalls [][2]string
}

// Server is the fake. Fields must be set before the first request.
type Server struct {
	*httptest.Server
	// Router selects router mode (/models with status) over single-model
	// mode (/models answers 404, only /v1/models).
	Router bool
	Models []Model
	// APIKey, when set, is required as "Authorization: Bearer <key>".
	APIKey string

	// Classify configures the classification endpoints (classify.go).
	Classify Classify

	mu       sync.Mutex
	calls    []Call
	down     bool
	manage   map[string]*managed
	refused  map[string]bool
	turns    []Turn
	requests []map[string]any
	paths    []string
}

// New starts a fake router serving models and answering chat requests
// with turns, in order.
func New(router bool, models []Model, turns ...Turn) *Server {
	s := &Server{Router: router, Models: models, turns: turns}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the decoded chat request bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

// Paths returns the request paths received so far, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	if s.classifyDown() {
		// Simulates a server that stopped: the connection is dropped.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
	}
	if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`)
		return
	}
	switch {
	case r.URL.Path == "/tokenize" && r.Method == http.MethodPost:
		s.tokenize(w, r)
	case r.URL.Path == "/apply-template" && r.Method == http.MethodPost:
		s.applyTemplate(w, r)
	case r.URL.Path == "/completion" && r.Method == http.MethodPost:
		s.completion(w, r)
	case (r.URL.Path == "/models/load" || r.URL.Path == "/models/unload") && r.Method == http.MethodPost && s.Router:
		s.loadUnload(w, r)
	case r.URL.Path == "/models" && r.Method == http.MethodPost && s.Router:
		s.download(w, r)
	case r.URL.Path == "/models" && s.Router:
		s.routerModels(w)
	case r.URL.Path == "/v1/models" || r.URL.Path == "/models":
		if r.URL.Path == "/models" {
			// Older single-model servers have no /models route.
			http.NotFound(w, r)
			return
		}
		s.v1Models(w)
	case r.URL.Path == "/props":
		s.props(w, r)
	case r.URL.Path == "/v1/chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`)
	}
}

func (s *Server) routerModels(w http.ResponseWriter) {
	var data []map[string]any
	for _, m := range s.catalog() {
		status := map[string]any{"value": m.Status}
		s.statusExtras(m.ID, status)
		if m.CtxSize > 0 {
			status["args"] = []string{"llama-server", "-c", fmt.Sprint(m.CtxSize), "--jinja"}
		}
		data = append(data, map[string]any{"id": m.ID, "object": "model", "owned_by": "llamacpp", "created": 1764547200,
			"in_cache": false, "path": "/models/" + m.ID + ".gguf", "status": status})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

func (s *Server) v1Models(w http.ResponseWriter) {
	var data []map[string]any
	for _, m := range s.Models {
		meta := map[string]any{"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 40960, "n_embd": 1024, "n_params": 596049920, "size": 639446688}
		if m.CtxSize > 0 {
			meta["n_ctx"] = m.CtxSize
		}
		data = append(data, map[string]any{"id": m.ID, "object": "model", "created": 1764547200, "owned_by": "llamacpp", "meta": meta})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

func (s *Server) props(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("model")
	for _, m := range s.Models {
		if id == "" || m.ID == id {
			writeJSON(w, map[string]any{"chat_template": m.ChatTemplate, "model_path": "/models/" + m.ID + ".gguf",
				"default_generation_settings": map[string]any{"n_ctx": m.CtxSize}})
			return
		}
	}
	w.WriteHeader(http.StatusBadRequest)
	io.WriteString(w, `{"error":{"code":400,"message":"model not found","type":"invalid_request_error"}}`)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, body)
	var turn Turn
	ok := n < len(s.turns)
	if ok {
		turn = s.turns[n]
	}
	s.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"code":500,"message":"fake llama-server: no scripted turn %d","type":"server_error"}}`, n+1)
		return
	}
	model, _ := body["model"].(string)
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any, extra map[string]any) {
		c := map[string]any{"choices": []any{map[string]any{"finish_reason": finish, "index": 0, "delta": delta}},
			"created": 1764547200, "id": "chatcmpl-fake", "model": model, "system_fingerprint": "b7000-fake", "object": "chat.completion.chunk"}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk(map[string]any{"role": "assistant", "content": nil}, nil, nil)
	for _, piece := range split(turn.Reasoning) {
		chunk(map[string]any{"reasoning_content": piece}, nil, nil)
	}
	for _, piece := range split(turn.Text) {
		chunk(map[string]any{"content": piece}, nil, nil)
	}
	for i, tc := range turn.ToolCalls {
		args := tc[1]
		half := len(args) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("fakeCall%dxYz0123456789abcdefghij", i),
			"type": "function", "function": map[string]any{"name": tc[0], "arguments": args[:half]}}}}, nil, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": args[half:]}}}}, nil, nil)
	}
	finish := "stop"
	if len(turn.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish, map[string]any{
		"usage":   map[string]any{"completion_tokens": 12, "prompt_tokens": 40, "total_tokens": 52},
		"timings": map[string]any{"prompt_n": 40, "prompt_ms": 12.5, "predicted_n": 12, "predicted_ms": 30.1},
	})
	io.WriteString(w, "data: [DONE]\n\n")
}

// split cuts s into word-sized pieces, as a token stream arrives.
func split(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s[1:], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(v)
}
