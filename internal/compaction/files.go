package compaction

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// FileDetails is the default `details` of compaction and branch summaries.
type FileDetails struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// FileTracker collects the files tools read and changed.
type FileTracker struct {
	read, written, edited map[string]bool
}

// NewFileTracker returns an empty tracker, optionally seeded with a
// previous summary's details.
func NewFileTracker(seed *FileDetails) *FileTracker {
	t := &FileTracker{read: map[string]bool{}, written: map[string]bool{}, edited: map[string]bool{}}
	if seed != nil {
		for _, f := range seed.ReadFiles {
			t.read[f] = true
		}
		for _, f := range seed.ModifiedFiles {
			t.edited[f] = true
		}
	}
	return t
}

// ParseDetails reads a FileDetails from raw details; nil when absent or
// another shape.
func ParseDetails(raw json.RawMessage) *FileDetails {
	if len(raw) == 0 {
		return nil
	}
	var d FileDetails
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil
	}
	return &d
}

// Add records the tool calls of assistant messages (and nested calls of
// tool results).
func (t *FileTracker) Add(msgs []llm.Message) {
	for _, m := range msgs {
		switch v := m.(type) {
		case *llm.AssistantMessage:
			for _, c := range v.ToolCalls() {
				t.record(c.Name, c.Arguments)
			}
		case *llm.ToolResultMessage:
			if len(v.NestedCalls) == 0 {
				continue
			}
			var nc struct {
				Calls []struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"calls"`
			}
			if json.Unmarshal(v.NestedCalls, &nc) == nil {
				for _, c := range nc.Calls {
					t.record(c.Name, c.Arguments)
				}
			}
		}
	}
}

func (t *FileTracker) record(name string, args json.RawMessage) {
	var a struct {
		Path any `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil {
		return
	}
	p, ok := a.Path.(string)
	if !ok || p == "" {
		return
	}
	switch name {
	case "read":
		t.read[p] = true
	case "write":
		t.written[p] = true
	case "edit":
		t.edited[p] = true
	}
}

// Details returns sorted modified (edited ∪ written) and read-only files.
func (t *FileTracker) Details() FileDetails {
	mod := map[string]bool{}
	for f := range t.edited {
		mod[f] = true
	}
	for f := range t.written {
		mod[f] = true
	}
	d := FileDetails{ReadFiles: []string{}, ModifiedFiles: []string{}}
	for f := range mod {
		d.ModifiedFiles = append(d.ModifiedFiles, f)
	}
	for f := range t.read {
		if !mod[f] {
			d.ReadFiles = append(d.ReadFiles, f)
		}
	}
	sort.Strings(d.ReadFiles)
	sort.Strings(d.ModifiedFiles)
	return d
}

// AppendFileLists adds the <read-files> and <modified-files> blocks to a
// summary, omitting empty ones.
func AppendFileLists(summary string, d FileDetails) string {
	if len(d.ReadFiles) > 0 {
		summary += "\n\n<read-files>\n" + strings.Join(d.ReadFiles, "\n") + "\n</read-files>"
	}
	if len(d.ModifiedFiles) > 0 {
		summary += "\n\n<modified-files>\n" + strings.Join(d.ModifiedFiles, "\n") + "\n</modified-files>"
	}
	return summary
}
