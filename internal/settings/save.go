package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
)

// SaveUser edits <agentDir>/settings.json under its lock and writes it
// atomically. edit receives the file as written (unknown keys and key order
// kept; a missing file is an empty object). A file that is not valid JSON
// is never overwritten: the user must fix it first.
func SaveUser(agentDir string, edit func(*Object) error) error {
	return saveFile(config.Agent{Dir: agentDir}.Settings(), edit)
}

// SaveProject is SaveUser for <cwd>/.relay/settings.json. Callers must
// only write project settings of a trusted project.
func SaveProject(cwd string, edit func(*Object) error) error {
	return saveFile(config.Project{Cwd: cwd}.Settings(), edit)
}

func saveFile(path string, edit func(*Object) error) error {
	return withFileLock(path, func() error {
		obj := NewObject()
		data, err := fsx.ReadFile(path, config.MaxConfigFile)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read settings %s: %w", path, unwrapPath(err))
		case strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) != "":
			v, err := parseOrdered(data)
			if err != nil {
				return fmt.Errorf("settings %s not saved: %w", path, err)
			}
			o, ok := v.(*Object)
			if !ok {
				return fmt.Errorf("settings %s not saved: top level is not a JSON object", path)
			}
			obj = o
		}
		if err := edit(obj); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := writeValue(&b, obj, indentOf(data), 0); err != nil {
			return fmt.Errorf("encode settings %s: %w", path, err)
		}
		b.WriteByte('\n')
		out := b.Bytes()
		if bytes.Contains(data, []byte("\r\n")) {
			out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
		}
		return writeAtomic(path, out)
	})
}

// SetUser validates value for the setting at path (segments, so model keys
// with dots stay whole: []string{"modelThinkingLevels", "openai/gpt-4.1"})
// and writes it to the user file. A nil value deletes the key; objects left
// empty by a delete are removed.
func SetUser(agentDir string, path []string, value any) error {
	return setIn(config.Agent{Dir: agentDir}.Settings(), ScopeUser, path, value, SaveUser, agentDir)
}

// SetProject is SetUser for the project file; agent-directory-only keys are
// refused.
func SetProject(cwd string, path []string, value any) error {
	return setIn(config.Project{Cwd: cwd}.Settings(), ScopeProject, path, value, SaveProject, cwd)
}

func setIn(file string, scope Scope, path []string, value any, save func(string, func(*Object) error) error, dir string) error {
	if len(path) == 0 {
		return errors.New("set setting: empty key")
	}
	key := keyString(path)
	if scope == ScopeProject && agentOnlyKeys[path[0]] {
		return fmt.Errorf("%s: %s can only be set in the agent-directory settings file", file, key)
	}
	n := schema()
	for _, seg := range path {
		switch {
		case n.fields != nil:
			n = n.fields[seg]
		case n.elem != nil:
			n = n.elem
		default:
			n = nil
		}
		if n == nil {
			return fmt.Errorf("%s: %s: unknown setting", file, key)
		}
	}
	var ov any
	if value != nil {
		var err error
		if ov, err = toOrdered(value); err != nil {
			return fmt.Errorf("%s: %s: %w", file, key, err)
		}
		var diags []Diagnostic
		if _, ok := cleanValue(n, ov, key, file, &diags); !ok || hasErrors(diags) {
			return fmt.Errorf("%s", diags[0].String())
		}
	}
	return save(dir, func(o *Object) error {
		if value == nil {
			deletePath(o, path)
			return nil
		}
		return putPath(o, path, ov)
	})
}

func hasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// ParseKey splits a key written as in diagnostics and /settings:
// dotted segments, with bracketed quoted segments for names that contain
// dots or slashes: compaction.modelOverrides["openai/gpt-4.1"].reserveTokens.
func ParseKey(key string) ([]string, error) {
	var path []string
	rest := key
	for rest != "" {
		if strings.HasPrefix(rest, "[") {
			q, err := strconv.QuotedPrefix(rest[1:])
			if err != nil || !strings.HasPrefix(rest[1+len(q):], "]") {
				return nil, fmt.Errorf("key %q: bad bracketed segment", key)
			}
			seg, _ := strconv.Unquote(q)
			path = append(path, seg)
			rest = strings.TrimPrefix(rest[1+len(q)+1:], ".")
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return nil, fmt.Errorf("key %q: empty segment", key)
		}
		path = append(path, rest[:end])
		rest = rest[end:]
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return nil, fmt.Errorf("key %q: empty segment", key)
			}
		}
	}
	if len(path) == 0 {
		return nil, fmt.Errorf("empty key")
	}
	return path, nil
}

// keyString renders path as a diagnostic key.
func keyString(path []string) string {
	var b strings.Builder
	for i, seg := range path {
		if strings.ContainsAny(seg, `./[]" `) {
			b.WriteString("[" + strconv.Quote(seg) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func putPath(o *Object, path []string, v any) error {
	for i, seg := range path[:len(path)-1] {
		next, ok := o.Get(seg)
		child, isObj := next.(*Object)
		if !ok || next == nil {
			child = NewObject()
			o.Put(seg, child)
		} else if !isObj {
			return fmt.Errorf("set %s: %s is not an object", keyString(path), keyString(path[:i+1]))
		}
		o = child
	}
	o.Put(path[len(path)-1], v)
	return nil
}

func deletePath(o *Object, path []string) {
	if len(path) == 1 {
		o.Delete(path[0])
		return
	}
	next, _ := o.Get(path[0])
	child, ok := next.(*Object)
	if !ok {
		return
	}
	deletePath(child, path[1:])
	if child.Len() == 0 {
		o.Delete(path[0])
	}
}

// SetDefaultModel saves defaultProvider and defaultModel together (/model).
func SetDefaultModel(agentDir, provider, modelID string) error {
	return SaveUser(agentDir, func(o *Object) error {
		o.Put("defaultProvider", provider)
		o.Put("defaultModel", modelID)
		return nil
	})
}

// SetDefaultThinkingLevel saves defaultThinkingLevel.
func SetDefaultThinkingLevel(agentDir string, level llm.ThinkingLevel) error {
	return SetUser(agentDir, []string{"defaultThinkingLevel"}, string(level))
}

// SetModelThinkingLevel saves the startup level of one model; an empty
// level removes the entry.
func SetModelThinkingLevel(agentDir, provider, modelID string, level llm.ThinkingLevel) error {
	path := []string{"modelThinkingLevels", provider + "/" + modelID}
	if level == "" {
		return SetUser(agentDir, path, nil)
	}
	return SetUser(agentDir, path, string(level))
}

// indentOf returns the indentation unit of a JSON document as the user
// wrote it (the leading blanks of its first indented line), so a save keeps
// tabs or four spaces; two spaces when nothing is indented.
func indentOf(data []byte) string {
	for _, l := range bytes.Split(data, []byte{'\n'})[1:] {
		n := 0
		for n < len(l) && (l[n] == ' ' || l[n] == '\t') {
			n++
		}
		if n > 0 && n < len(bytes.TrimRight(l, "\r")) {
			return string(l[:n])
		}
	}
	return "  "
}
