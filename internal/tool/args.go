package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Args reads a tool's JSON arguments field by field and collects problems as
// messages that name the argument and what was expected. Null counts as
// absent. Numbers and booleans sent as strings ("10", "true") are accepted,
// as models often send them that way.
type Args struct {
	tool string
	raw  json.RawMessage
	m    map[string]json.RawMessage
	errs []string
}

// ParseArgs decodes raw as a JSON object. An empty input is an empty object.
func ParseArgs(toolName string, raw json.RawMessage) *Args {
	a := &Args{tool: toolName, raw: raw, m: map[string]json.RawMessage{}}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return a
	}
	if err := json.Unmarshal(trimmed, &a.m); err != nil {
		a.errs = append(a.errs, "arguments: expected a JSON object")
	}
	return a
}

// Has reports whether name is present and not null.
func (a *Args) Has(name string) bool {
	v, ok := a.m[name]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// Raw returns the raw value of name (nil when absent or null).
func (a *Args) Raw(name string) json.RawMessage {
	if !a.Has(name) {
		return nil
	}
	return a.m[name]
}

// Fail records a problem with argument name.
func (a *Args) Fail(name, format string, v ...any) {
	a.errs = append(a.errs, name+": "+fmt.Sprintf(format, v...))
}

func describe(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "nothing"
	}
	switch s[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// String returns the string argument name; a missing required one is a
// problem.
func (a *Args) String(name string, required bool) string {
	if !a.Has(name) {
		if required {
			a.Fail(name, "required string is missing")
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		a.Fail(name, "expected a string, got %s", describe(a.m[name]))
	}
	return s
}

// Number returns the number argument name and whether it was given.
func (a *Args) Number(name string) (float64, bool) {
	if !a.Has(name) {
		return 0, false
	}
	raw := bytes.TrimSpace(a.m[name])
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if g, perr := strconv.ParseFloat(strings.TrimSpace(s), 64); perr == nil {
				return g, true
			}
		}
		a.Fail(name, "expected a number, got %s", describe(raw))
		return 0, false
	}
	return f, true
}

// Int returns the integer argument name and whether it was given.
func (a *Args) Int(name string) (int, bool) {
	f, ok := a.Number(name)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		a.Fail(name, "expected an integer, got %s", strconv.FormatFloat(f, 'f', -1, 64))
		return 0, false
	}
	return int(f), true
}

// Bool returns the boolean argument name (false when absent).
func (a *Args) Bool(name string) bool {
	if !a.Has(name) {
		return false
	}
	raw := bytes.TrimSpace(a.m[name])
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				return true
			case "false", "":
				return false
			}
		}
		a.Fail(name, "expected a boolean, got %s", describe(raw))
	}
	return b
}

// Err returns the validation error result, or nil when every argument was
// fine. The text lists each problem and echoes the received arguments.
func (a *Args) Err() *Result {
	if len(a.errs) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Validation failed for tool %q:\n", a.tool)
	for _, e := range a.errs {
		b.WriteString("  - ")
		b.WriteString(e)
		b.WriteByte('\n')
	}
	b.WriteString("\nReceived arguments:\n")
	b.WriteString(a.echo())
	r := Error(b.String())
	return &r
}

func (a *Args) echo() string {
	if len(a.m) == 0 {
		s := strings.TrimSpace(string(a.raw))
		if s == "" {
			return "{}"
		}
		return s
	}
	keys := make([]string, 0, len(a.m))
	for k := range a.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(":")
		v := string(bytes.TrimSpace(a.m[k]))
		if len(v) > 200 {
			v = v[:200] + "…"
		}
		b.WriteString(v)
	}
	b.WriteString("}")
	return b.String()
}
