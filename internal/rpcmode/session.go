package rpcmode

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/session"
)

func (s *Server) entries(c *command) (any, error) {
	sess := s.rt.Session()
	var list []*session.Entry
	if c.Since != nil {
		if sess.Entry(*c.Since) == nil {
			return nil, fmt.Errorf("Entry not found: %s", *c.Since)
		}
		list = sess.EntriesSince(*c.Since)
	} else {
		list = sess.Entries()
	}
	if list == nil {
		list = []*session.Entry{}
	}
	var leaf *string
	if id := sess.LeafID(); id != "" {
		leaf = &id
	}
	return map[string]any{"entries": list, "leafId": leaf}, nil
}

type treeNode struct {
	Entry          *session.Entry `json:"entry"`
	Children       []*treeNode    `json:"children"`
	Label          string         `json:"label,omitempty"`
	LabelTimestamp string         `json:"labelTimestamp,omitempty"`
}

func convertTree(ns []*session.TreeNode) []*treeNode {
	out := make([]*treeNode, 0, len(ns))
	for _, n := range ns {
		out = append(out, &treeNode{Entry: n.Entry, Children: convertTree(n.Children), Label: n.Label, LabelTimestamp: n.LabelTimestamp})
	}
	return out
}

func (s *Server) tree() any {
	sess := s.rt.Session()
	var leaf *string
	if id := sess.LeafID(); id != "" {
		leaf = &id
	}
	return map[string]any{"tree": convertTree(sess.Tree()), "leafId": leaf}
}

// Confirm implements the harness approver through the extension UI
// sub-protocol: it asks the client with a confirm dialog and waits for its
// extension_ui_response. A cancelled dialog, or one that can no longer be
// answered because stdin closed, is a refusal.
func (s *Server) Confirm(ctx context.Context, title, message string) (bool, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false, nil
	}
	s.nextUI++
	id := "ui-" + strconv.Itoa(s.nextUI)
	ch := make(chan uiResponse, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	req := map[string]any{"type": "extension_ui_request", "id": id, "method": "confirm", "title": title, "message": message}
	if err := s.out.Write(req, true); err != nil {
		return false, err
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case r := <-ch:
		if r.Cancelled {
			return false, nil
		}
		if r.Confirmed != nil {
			return *r.Confirmed, nil
		}
		var b bool
		_ = json.Unmarshal(r.Value, &b)
		return b, nil
	}
}

// notify sends a fire-and-forget notification (extension command output).
func (s *Server) notify(message, kind string) {
	s.mu.Lock()
	s.nextUI++
	id := "ui-" + strconv.Itoa(s.nextUI)
	s.mu.Unlock()
	_ = s.out.Write(map[string]any{"type": "extension_ui_request", "id": id, "method": "notify", "message": message, "notifyType": kind}, true)
}

// resolveUI delivers a client answer to the dialog waiting for it. Answers
// to unknown or already answered dialogs are ignored.
func (s *Server) resolveUI(c *command) {
	if c.ID == nil {
		return
	}
	s.mu.Lock()
	ch := s.pending[*c.ID]
	delete(s.pending, *c.ID)
	s.mu.Unlock()
	if ch != nil {
		ch <- uiResponse{Value: c.Value, Confirmed: c.Confirmed, Cancelled: c.Cancelled}
	}
}

// shutdownDialogs cancels every open dialog once stdin has closed.
func (s *Server) shutdownDialogs() {
	s.mu.Lock()
	s.closed = true
	open := s.pending
	s.pending = map[string]chan uiResponse{}
	s.mu.Unlock()
	for _, ch := range open {
		ch <- uiResponse{Cancelled: true}
	}
}

// rpcUI is RPC mode's hooks.UI: the extension-UI sub-protocol.
type rpcUI struct {
	hooks.Headless
	s *Server
}

func (u rpcUI) Confirm(ctx context.Context, title, message string) (bool, error) {
	return u.s.Confirm(ctx, title, message)
}

func (u rpcUI) Notify(level hooks.Level, message string) {
	if level == "" {
		level = hooks.LevelInfo
	}
	u.s.notify(message, string(level))
}
