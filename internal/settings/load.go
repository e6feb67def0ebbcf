package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
)

// Severity of a Diagnostic.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in a settings file. Key is the dotted
// path of the setting ("" for the whole file); dynamic keys are written in
// brackets: compaction.modelOverrides["anthropic/claude-x"].reserveTokens.
type Diagnostic struct {
	File     string   `json:"file"`
	Key      string   `json:"key,omitempty"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

func (d Diagnostic) String() string {
	if d.Key == "" {
		return fmt.Sprintf("%s: %s: %s", d.File, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s: %s", d.File, d.Severity, d.Key, d.Message)
}

// LoadOptions says where to look.
type LoadOptions struct {
	AgentDir string
	Cwd      string
	// ProjectTrusted loads <cwd>/.relay/settings.json. Untrusted projects
	// still contribute sessionDir, which is read before trust.
	ProjectTrusted bool
}

// fileLayer is one parsed and validated settings file.
type fileLayer struct {
	path  string
	scope Scope
	base  string  // resource base directory
	obj   *Object // validated; nil when absent or unreadable
}

// Load reads, validates and merges the user and project settings files.
// It never fails: missing files are fine, and every problem is returned as
// a Diagnostic while the affected key keeps its default (or the user
// file's value, for a bad project value).
func Load(opts LoadOptions) (*Settings, []Diagnostic) {
	var diags []Diagnostic
	user := &fileLayer{scope: ScopeUser}
	if opts.AgentDir != "" {
		user = readLayer(config.Agent{Dir: opts.AgentDir}.Settings(), ScopeUser, opts.AgentDir, &diags)
	}
	var project *fileLayer
	switch {
	case opts.Cwd == "":
		project = &fileLayer{scope: ScopeProject}
	case opts.ProjectTrusted:
		project = readLayer(config.Project{Cwd: opts.Cwd}.Settings(), ScopeProject, projectBase(opts.Cwd), &diags)
	default:
		project = &fileLayer{scope: ScopeProject}
		if dir, d := ProjectSessionDir(opts.Cwd); dir != "" || len(d) > 0 {
			diags = append(diags, d...)
			if dir != "" {
				project.obj = NewObject()
				project.obj.Put("sessionDir", dir)
			}
		}
	}
	return build(opts, user, project), diags
}

// ProjectSessionDir reads only sessionDir from <cwd>/.relay/settings.json,
// before any trust decision. The value is returned as written ("" when
// unset); diagnostics concern this key or the file's syntax only.
func ProjectSessionDir(cwd string) (string, []Diagnostic) {
	path := config.Project{Cwd: cwd}.Settings()
	var diags []Diagnostic
	obj := parseFile(path, &diags)
	if obj == nil {
		return "", diags
	}
	v, ok := obj.Get("sessionDir")
	if !ok {
		return "", diags
	}
	s, isStr := v.(string)
	if !isStr {
		diags = append(diags, Diagnostic{File: path, Key: "sessionDir", Severity: SeverityError,
			Message: "expected a string, got " + describe(v) + "; ignored"})
		return "", diags
	}
	return s, diags
}

// parseFile reads a settings file into an ordered object. Absent and empty
// files are nil without a diagnostic.
func parseFile(path string, diags *[]Diagnostic) *Object {
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			*diags = append(*diags, Diagnostic{File: path, Severity: SeverityError,
				Message: fmt.Sprintf("cannot read settings: %v; using defaults for this file", unwrapPath(err))})
		}
		return nil
	}
	if strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) == "" {
		return nil
	}
	v, err := parseOrdered(data)
	if err != nil {
		*diags = append(*diags, Diagnostic{File: path, Severity: SeverityError,
			Message: err.Error() + "; the whole file is ignored"})
		return nil
	}
	obj, ok := v.(*Object)
	if !ok {
		*diags = append(*diags, Diagnostic{File: path, Severity: SeverityError,
			Message: "expected a JSON object at the top level, got " + describe(v) + "; the whole file is ignored"})
		return nil
	}
	return obj
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	var nr *fsx.NotRegularError
	var tl *fsx.TooLargeError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &nr):
		return fmt.Errorf("it is a %s, not a regular file", nr.Kind)
	case errors.As(err, &tl) && tl.Size >= 0:
		return fmt.Errorf("too large (%d bytes, limit %d)", tl.Size, tl.Limit)
	case errors.As(err, &tl):
		return fmt.Errorf("too large (more than %d bytes)", tl.Limit)
	}
	return err
}

func readLayer(path string, scope Scope, base string, diags *[]Diagnostic) *fileLayer {
	l := &fileLayer{path: path, scope: scope, base: base}
	obj := parseFile(path, diags)
	if obj == nil {
		return l
	}
	migrate(obj)
	if scope == ScopeProject {
		for _, k := range obj.Keys() {
			if agentOnlyKeys[k] {
				*diags = append(*diags, Diagnostic{File: path, Key: k, Severity: SeverityWarning,
					Message: "can only be set in the agent-directory settings file; ignored in project settings"})
				obj.Delete(k)
			}
		}
	}
	cleaned, _ := cleanValue(schema(), obj, "", path, diags)
	l.obj = cleaned.(*Object)
	return l
}

// migrate rewrites keys of older settings files in memory, as the
// original does on load: queueMode -> steeringMode, websockets ->
// transport, the skills object -> skills array + enableSkillCommands,
// retry.maxDelayMs -> retry.provider.maxRetryDelayMs.
func migrate(o *Object) {
	if v, ok := o.Get("queueMode"); ok {
		if _, has := o.Get("steeringMode"); !has {
			o.Put("steeringMode", v)
		}
		o.Delete("queueMode")
	}
	if v, ok := o.Get("websockets"); ok {
		if b, isBool := v.(bool); isBool {
			if _, has := o.Get("transport"); !has {
				o.Put("transport", map[bool]string{true: "websocket", false: "sse"}[b])
			}
			o.Delete("websockets")
		}
	}
	if v, ok := o.Get("skills"); ok {
		if sk, isObj := v.(*Object); isObj {
			if e, ok := sk.Get("enableSkillCommands"); ok {
				if _, has := o.Get("enableSkillCommands"); !has {
					o.Put("enableSkillCommands", e)
				}
			}
			if dirs, ok := sk.Get("customDirectories"); ok {
				if arr, isArr := dirs.([]any); isArr && len(arr) > 0 {
					o.Put("skills", arr)
				} else {
					o.Delete("skills")
				}
			} else {
				o.Delete("skills")
			}
		}
	}
	if v, ok := o.Get("retry"); ok {
		if r, isObj := v.(*Object); isObj {
			if d, ok := r.Get("maxDelayMs"); ok {
				if _, isNum := d.(json.Number); isNum {
					p, _ := r.Get("provider")
					po, isObj := p.(*Object)
					if !isObj {
						po = NewObject()
					}
					if cur, has := po.Get("maxRetryDelayMs"); !has || cur == nil {
						po.Put("maxRetryDelayMs", d)
						r.Put("provider", po)
					}
				}
				r.Delete("maxDelayMs")
			}
		}
	}
}

// cleanValue validates v against n, appending diagnostics, and returns v
// without the values that were rejected or unknown; ok is false when v
// itself is rejected and must be dropped.
func cleanValue(n *node, v any, path, file string, diags *[]Diagnostic) (any, bool) {
	bad := func(expected string) (any, bool) {
		*diags = append(*diags, Diagnostic{File: file, Key: path, Severity: SeverityError,
			Message: fmt.Sprintf("expected %s, got %s; ignored", expected, describe(v))})
		return nil, false
	}
	switch {
	case n.strOr != nil:
		if str, ok := v.(string); ok && str != "" {
			return v, true
		}
		o, ok := v.(*Object)
		if !ok {
			return bad("a non-empty string or an object")
		}
		for _, k := range n.required {
			if _, has := o.Get(k); !has {
				*diags = append(*diags, Diagnostic{File: file, Key: path + "." + k, Severity: SeverityError,
					Message: "required; the entry is ignored"})
				return nil, false
			}
		}
		before := len(*diags)
		cv, ok := cleanValue(n.strOr, v, path, file, diags)
		// A bad filter would silently widen or narrow what loads: drop
		// the whole entry instead.
		if ok && hasErrors((*diags)[before:]) {
			return nil, false
		}
		return cv, ok
	case n.leaf != nil:
		if want, ok := n.leaf(v); !ok {
			return bad(want)
		}
		return v, true
	case n.list != nil:
		arr, ok := v.([]any)
		if !ok {
			return bad("an array")
		}
		// One bad element rejects the list: a partial tool or resource
		// list would mean something the user did not write.
		good := true
		before := len(*diags)
		out := make([]any, 0, len(arr))
		for i, e := range arr {
			cv, ok := cleanValue(n.list, e, fmt.Sprintf("%s[%d]", path, i), file, diags)
			good = good && ok
			out = append(out, cv)
		}
		if !good {
			for i := before; i < len(*diags); i++ {
				if d := &(*diags)[i]; d.Severity == SeverityError {
					d.Message = strings.TrimSuffix(strings.TrimSuffix(d.Message, "; ignored"), "; the entry is ignored") +
						"; the whole " + path + " list is ignored"
				}
			}
			return nil, false
		}
		return out, true
	default:
		o, ok := v.(*Object)
		if !ok {
			return bad("an object")
		}
		res := NewObject()
		for _, k := range o.Keys() {
			child := n.elem
			key := path + "[" + strconv.Quote(k) + "]"
			if n.fields != nil {
				child = n.fields[k]
				key = k
				if path != "" {
					key = path + "." + k
				}
			}
			val, _ := o.Get(k)
			if child == nil {
				*diags = append(*diags, Diagnostic{File: file, Key: key, Severity: SeverityWarning,
					Message: "unknown setting; ignored"})
				continue
			}
			if cv, ok := cleanValue(child, val, key, file, diags); ok {
				res.Put(k, cv)
			}
		}
		return res, true
	}
}

// mergeObjects merges override into base recursively: objects merge,
// everything else (arrays included) is replaced.
func mergeObjects(base, override *Object) *Object {
	out := base.clone()
	for _, k := range override.Keys() {
		ov, _ := override.Get(k)
		if bv, ok := out.Get(k); ok {
			bo, bIsObj := bv.(*Object)
			oo, oIsObj := ov.(*Object)
			if bIsObj && oIsObj {
				out.Put(k, mergeObjects(bo, oo))
				continue
			}
		}
		out.Put(k, cloneValue(ov))
	}
	return out
}

func build(opts LoadOptions, user, project *fileLayer) *Settings {
	s := Defaults()
	u, p := user.obj, project.obj
	if u == nil {
		u = NewObject()
	}
	if p == nil {
		p = NewObject()
	}
	// Keys with their own combination rules leave the recursive merge.
	special := func(o *Object) *Object {
		c := o.clone()
		for _, k := range append([]string{"defaultTools", "sessionDir"}, resourceKeys...) {
			c.Delete(k)
		}
		return c
	}
	merged := mergeObjects(special(u), special(p))
	data, err := merged.MarshalJSON()
	if err == nil {
		// Validated values always fit the struct; an error here would be a
		// schema/struct mismatch caught by the tests.
		_ = json.Unmarshal(data, s)
	}

	ut, hasUT := u.Get("defaultTools")
	pt, hasPT := p.Get("defaultTools")
	s.DefaultTools = ResolveTools(stringList(ut), stringList(pt), hasUT, hasPT)

	// The project's sessionDir wins and applies even before trust.
	for _, o := range []*Object{p, u} {
		v, _ := o.Get("sessionDir")
		if dir, _ := v.(string); dir != "" {
			s.SessionDir = config.ResolvePath(opts.Cwd, dir)
			break
		}
	}

	for _, l := range []struct {
		o     *Object
		scope Scope
		base  string
	}{{u, ScopeUser, opts.AgentDir}, {p, ScopeProject, projectBase(opts.Cwd)}} {
		get := func(k string) any { v, _ := l.o.Get(k); return v }
		s.Packages = append(s.Packages, packages(get("packages"), l.scope, l.base)...)
		s.Extensions = append(s.Extensions, resources(get("extensions"), l.scope, l.base)...)
		s.Skills = append(s.Skills, resources(get("skills"), l.scope, l.base)...)
		s.Prompts = append(s.Prompts, resources(get("prompts"), l.scope, l.base)...)
		s.Themes = append(s.Themes, resources(get("themes"), l.scope, l.base)...)
	}

	if s.ShellPath != "" {
		if e, err := config.ExpandHome(s.ShellPath); err == nil {
			s.ShellPath = e
		}
	}
	return s
}
