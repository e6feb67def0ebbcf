package rpcmode

import (
	"fmt"

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
