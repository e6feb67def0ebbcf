// Package export writes a session as a single self-contained HTML file
// (the whole tree: branches, tool calls and results, thinking, images) or
// as JSONL.
package export

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"indent": func(d int) int {
		if d > 16 {
			d = 16
		}
		return d * 18
	},
}).Parse(pageHTML))

// File exports the session file in to out ("" = relay-session-<id>.html in
// the current directory). An out ending in .jsonl copies the records.
func File(in, out string) (string, error) {
	// Load reads without taking the writer lock, so exporting a session
	// another relay has open works.
	s, err := session.Load(in)
	if err != nil {
		return "", err
	}
	return Session(s, out)
}

// Session exports an open session.
func Session(s *session.Manager, out string) (string, error) {
	if out == "" {
		out = "relay-session-" + s.SessionID() + ".html"
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	var data []byte
	if strings.HasSuffix(strings.ToLower(out), ".jsonl") {
		data, err = JSONL(s)
	} else {
		data, err = HTML(s)
	}
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(abs, data, 0o644); err != nil {
		return "", fmt.Errorf("export %s: %w", abs, err)
	}
	return abs, nil
}

// JSONL returns the header and every entry, one per line, as stored.
func JSONL(s *session.Manager) ([]byte, error) {
	var b bytes.Buffer
	if h := s.Header(); h != nil {
		raw, err := h.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	for _, e := range s.Entries() {
		raw, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// Node is one rendered entry.
type Node struct {
	ID, Type, Kind, Title, Time, Label string
	Depth                              int
	OnBranch, BranchPoint, IsError     bool
	Text                               string
	Thinking                           []string
	Calls                              []Call
	Images                             []template.URL
	Sections                           []Section
	Meta                               string
}

// Call is a tool call with pretty arguments.
type Call struct{ Name, ID, Args string }

// Section is a system prompt section.
type Section struct{ Name, Text string }

type pageData struct {
	Title, ID, Cwd, Created, File string
	Nodes                         []Node
	Entries, Branches             int
	Stats                         string
}

// HTML renders the session tree.
func HTML(s *session.Manager) ([]byte, error) {
	onBranch := map[string]bool{}
	for _, e := range s.Branch("") {
		onBranch[e.ID] = true
	}
	d := pageData{ID: s.SessionID(), Cwd: s.Cwd(), File: s.SessionFile(), Title: s.Name()}
	if d.Title == "" {
		d.Title = "relay session " + s.SessionID()
	}
	if h := s.Header(); h != nil {
		d.Created = h.Timestamp
	}
	var usage llm.Usage
	var walk func(ns []*session.TreeNode, depth int)
	walk = func(ns []*session.TreeNode, depth int) {
		for _, n := range ns {
			node := render(n.Entry)
			node.Depth = depth
			node.Label = n.Label
			node.OnBranch = onBranch[n.Entry.ID]
			node.BranchPoint = len(n.Children) > 1
			if len(n.Children) > 1 {
				d.Branches += len(n.Children) - 1
			}
			if m, err := n.Entry.Message(); err == nil {
				if a, ok := m.(*llm.AssistantMessage); ok {
					usage.Add(a.Usage)
				}
			}
			d.Nodes = append(d.Nodes, node)
			d.Entries++
			childDepth := depth
			if len(n.Children) > 1 {
				childDepth = depth + 1
			}
			walk(n.Children, childDepth)
		}
	}
	walk(s.Tree(), 0)
	d.Stats = fmt.Sprintf("%d entries · %d branches · %d input / %d output tokens · $%.4f", d.Entries, d.Branches, usage.Input, usage.Output, usage.Cost.Total)
	var b bytes.Buffer
	if err := page.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("render html: %w", err)
	}
	return b.Bytes(), nil
}

func fmtTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func blocksInto(n *Node, bs llm.Blocks) {
	var text []string
	for _, b := range bs {
		switch v := b.(type) {
		case *llm.TextContent:
			text = append(text, v.Text)
		case *llm.ImageContent:
			n.Images = append(n.Images, template.URL("data:"+v.MimeType+";base64,"+v.Data))
		case *llm.ThinkingContent:
			if v.Redacted {
				n.Thinking = append(n.Thinking, "(redacted thinking)")
			} else {
				n.Thinking = append(n.Thinking, v.Thinking)
			}
		case *llm.ToolCall:
			n.Calls = append(n.Calls, Call{Name: v.Name, ID: v.ID, Args: pretty(v.Arguments)})
		}
	}
	n.Text = strings.Join(text, "\n\n")
}

func pretty(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func render(e *session.Entry) Node {
	n := Node{ID: e.ID, Type: e.Type, Kind: e.Type, Time: fmtTime(e.Timestamp), Title: e.Type}
	switch e.Type {
	case session.TypeMessage:
		m, err := e.Message()
		if err != nil {
			n.Meta = "unreadable message: " + err.Error()
			return n
		}
		n.Kind = m.MessageRole()
		n.Title = m.MessageRole()
		switch v := m.(type) {
		case *llm.UserMessage:
			blocksInto(&n, v.Content.AsBlocks())
		case *llm.AssistantMessage:
			blocksInto(&n, v.Content)
			n.Title = "assistant · " + v.Provider + "/" + v.Model
			if v.StopReason == llm.StopError || v.StopReason == llm.StopAborted {
				n.IsError = true
				n.Meta = string(v.StopReason) + ": " + v.ErrorMessage
			}
		case *llm.ToolResultMessage:
			blocksInto(&n, v.Content)
			n.Title = "tool result · " + v.ToolName
			n.IsError = v.IsError
		case *llm.SystemMessage:
			n.Title = "system prompt"
			for _, s := range v.Sections {
				t := "(removed)"
				if s.Text != nil {
					t = *s.Text
				}
				n.Sections = append(n.Sections, Section{s.Name, t})
			}
			if c := v.Content.PlainText(); c != "" {
				n.Sections = append(n.Sections, Section{"content", c})
			}
			var tools []string
			for _, t := range v.ToolsAdded {
				tools = append(tools, "+"+t.Name)
			}
			for _, t := range v.ToolsRemoved {
				tools = append(tools, "-"+t.Name)
			}
			n.Meta = strings.Join(tools, " ")
		case *llm.BashExecutionMessage:
			n.Title = "shell · " + v.Command
			n.Text = llm.BashExecutionText(v)
		case *llm.CustomMessage:
			n.Title = "custom · " + v.CustomType
			blocksInto(&n, v.Content.AsBlocks())
		default:
			n.Meta = "(message of an unknown role)"
		}
	case session.TypeCompaction:
		if c := e.Compaction(); c != nil {
			n.Title = fmt.Sprintf("compaction · %d tokens summarized", c.TokensBefore)
			n.Text = c.Summary
		}
	case session.TypeBranchSummary:
		if b := e.BranchSummary(); b != nil {
			n.Title = "branch summary (from " + b.FromID + ")"
			n.Text = b.Summary
		}
	case session.TypeModelChange:
		if m := e.ModelChange(); m != nil {
			n.Meta = "model → " + m.Provider + "/" + m.ModelID
		}
	case session.TypeThinkingLevelChange:
		if t := e.ThinkingLevelChange(); t != nil {
			n.Meta = "thinking → " + t.ThinkingLevel
		}
	case session.TypeSessionInfo:
		if si := e.SessionInfo(); si != nil && si.Name != nil {
			n.Meta = "name → " + *si.Name
		}
	case session.TypeLabel:
		if l := e.Label(); l != nil {
			if l.Label != nil {
				n.Meta = "label " + l.TargetID + " → " + *l.Label
			} else {
				n.Meta = "label cleared on " + l.TargetID
			}
		}
	case session.TypeCustomMessage:
		if c := e.CustomMessage(); c != nil {
			n.Title = "custom message · " + c.CustomType
			blocksInto(&n, c.Content.AsBlocks())
		}
	case session.TypeContextEdit:
		if c := e.ContextEdit(); c != nil {
			if c.Replacement == nil {
				n.Meta = "context edit: " + c.TargetID + " omitted from model context"
			} else {
				n.Meta = "context edit: " + c.TargetID + " replaced"
			}
		}
	default:
		raw, _ := e.MarshalJSON()
		n.Meta = string(raw)
		if len(n.Meta) > 300 {
			n.Meta = n.Meta[:300] + "…"
		}
	}
	return n
}
