package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/textdiff"
	"github.com/relay-agent/relay/internal/tool"
)

type editItem struct {
	OldText string `json:"oldText" jsonschema:"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."`
	NewText string `json:"newText" jsonschema:"Replacement text for this targeted edit."`
}

type editArgs struct {
	Path  string     `json:"path" jsonschema:"Path to the file to edit (relative or absolute)"`
	Edits []editItem `json:"edits" jsonschema:"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."`
}

var editSchema = sync.OnceValue(tool.SchemaFor[editArgs])

// EditDetails is the edit tool's details object.
type EditDetails struct {
	Diff             string `json:"diff"`
	Patch            string `json:"patch"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

type editTool struct{ env Env }

func (t *editTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: "edit",
		Description: "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. " +
			"If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. " +
			"Do not include large unchanged regions just to connect distant changes.",
		Parameters: editSchema(),
	})
}

// parseEdits accepts the forms models send: an edits array, an edits array
// or single edit encoded as a JSON string, a single edit object, and the
// legacy top-level oldText/newText (appended to any edits).
func parseEdits(a *tool.Args) []textEdit {
	var out []textEdit
	if raw := a.Raw("edits"); raw != nil {
		raw = bytes.TrimSpace(raw)
		if raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
					raw = json.RawMessage(t)
				}
			}
		}
		switch raw[0] {
		case '[':
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				a.Fail("edits", "expected an array of {oldText, newText} objects")
				return nil
			}
			for i, it := range items {
				if e, ok := parseEditItem(a, "edits["+strconv.Itoa(i)+"]", it); ok {
					out = append(out, e)
				}
			}
		case '{':
			if e, ok := parseEditItem(a, "edits", raw); ok {
				out = append(out, e)
			}
		default:
			a.Fail("edits", "expected an array of {oldText, newText} objects, got %s", strings.TrimSpace(string(raw[:min(len(raw), 40)])))
			return nil
		}
	}
	if a.Has("oldText") || a.Has("newText") {
		old := a.String("oldText", true)
		nw := a.String("newText", true)
		out = append(out, textEdit{old, nw})
	}
	return out
}

func parseEditItem(a *tool.Args, name string, raw json.RawMessage) (textEdit, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		a.Fail(name, "expected an object with oldText and newText strings")
		return textEdit{}, false
	}
	var e textEdit
	ok := true
	for _, f := range []struct {
		key string
		dst *string
	}{{"oldText", &e.Old}, {"newText", &e.New}} {
		v, present := m[f.key]
		if !present || string(bytes.TrimSpace(v)) == "null" {
			a.Fail(name+"."+f.key, "required string is missing")
			ok = false
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			a.Fail(name+"."+f.key, "expected a string")
			ok = false
		}
	}
	return e, ok
}

func (t *editTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("edit", raw)
	path := a.String("path", true)
	edits := parseEdits(a)
	if r := a.Err(); r != nil {
		return *r
	}
	if len(edits) == 0 {
		return tool.Error("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	abs := resolvePath(path, t.env.Cwd)
	unlock, err := lockFile(ctx, abs)
	if err != nil {
		return tool.Error("Operation aborted")
	}
	defer unlock()
	target, err := fsx.ResolveLinks(abs)
	if err != nil {
		return tool.Errorf("Could not edit file: %s. Error code: %s.", path, errCode(err))
	}
	// The file is read, edited and saved; when another process changes it
	// in between, the edit starts over from the new content (the edits match
	// against whatever is on disk), and gives up after a few tries.
	var base, updated, warning string
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return tool.Error("Operation aborted")
		}
		var r *tool.Result
		base, updated, warning, r, err = t.editOnce(ctx, target, path, edits)
		if r != nil {
			return *r
		}
		if err == nil {
			break
		}
		if errors.Is(err, errChanged) && attempt < 3 {
			continue
		}
		if errors.Is(err, errChanged) {
			return tool.Errorf("Could not edit file: %s. It changed on disk while the edit was applied (another process keeps writing to it); nothing was written. Read it again and retry.", path)
		}
		return tool.Errorf("Could not edit file: %s. Error code: %s.", path, errCode(err))
	}
	diff, first := textdiff.Display(base, updated, 4)
	msg := "Successfully replaced " + strconv.Itoa(len(edits)) + " block(s) in " + path + "."
	if warning != "" {
		msg += "\nWarning: " + warning + "."
	}
	r := tool.Text(msg)
	r.Details = EditDetails{Diff: diff, Patch: textdiff.Unified(path, base, updated, 4), FirstChangedLine: first}
	return r
}

// editOnce reads target, applies the edits and saves the result. It returns
// the LF-normalized text before and after and a warning about writes of
// another process that could not be kept; or a tool result for failures the
// model must see as they are (no match, not a regular file); or an error
// (errChanged when the file changed on disk and nothing was written).
func (t *editTool) editOnce(ctx context.Context, target, path string, edits []textEdit) (base, updated, warning string, _ *tool.Result, _ error) {
	snap, err := readSnapshot(target)
	if err != nil {
		var nr *fsx.NotRegularError
		if errors.As(err, &nr) {
			r := tool.Errorf("Could not edit file: %s. It is a %s, not a regular file.", path, nr.Kind)
			if nr.Kind == fsx.Kind(fs.ModeDir) {
				r = tool.Errorf("Could not edit file: %s. Error code: EISDIR.", path)
			}
			return "", "", "", &r, nil
		}
		return "", "", "", nil, err
	}
	defer snap.close()
	text := string(snap.data)
	bom := ""
	if strings.HasPrefix(text, "\uFEFF") {
		bom, text = "\uFEFF", text[len("\uFEFF"):]
	}
	ending := detectLineEnding(text)
	base = normalizeToLF(text)
	updated, err = applyEdits(base, edits, path)
	if err != nil {
		r := tool.Error(err.Error())
		return "", "", "", &r, nil
	}
	if ctx.Err() != nil {
		r := tool.Error("Operation aborted")
		return "", "", "", &r, nil
	}
	final := updated
	if ending == "\r\n" {
		final = strings.ReplaceAll(updated, "\n", "\r\n")
	}
	warning, err = replaceFile(target, []byte(bom+final), snap)
	return base, updated, warning, nil, err
}
