package codemode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Options are the script's `// @options: {...}` first line.
type Options struct {
	MaxOutputTokens int // 0 = default
	TimeoutMs       int // 0 = unset
}

// codeKeys are the argument names models use for the script: `code` is
// the declared one; the others are accepted so a near miss still runs.
var codeKeys = []string{"code", "script", "source", "javascript", "js", "program"}

var fence = regexp.MustCompile("(?s)^```[A-Za-z0-9_+-]*[ \t]*\r?\n(.*?)\r?\n?```\\s*$")

// ParseInput turns the tool arguments into script source. Accepted shapes:
// {"code": "..."} and its aliases, a bare JSON string, arguments that are
// not JSON at all (raw source), source wrapped in a markdown fence, and a
// JSON tool-call program ({"tool": name, "args": {...}} or a list of them)
// in place of the source.
func ParseInput(args json.RawMessage) (string, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return "", errors.New("empty input: pass the script as {\"code\": \"...\"}")
	}
	var code string
	switch trimmed[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return "", fmt.Errorf("invalid arguments: %w", err)
		}
		found := false
		for _, k := range codeKeys {
			raw, ok := obj[k]
			if !ok {
				continue
			}
			if err := json.Unmarshal(raw, &code); err != nil {
				return "", fmt.Errorf("argument %s must be a string of JavaScript source", k)
			}
			found = true
			break
		}
		if !found {
			// The whole argument object may itself be a tool-call program.
			if prog, ok := programSource(trimmed); ok {
				return prog, nil
			}
			return "", errors.New("missing argument code: pass the script as {\"code\": \"...\"}")
		}
	case '"':
		if err := json.Unmarshal(trimmed, &code); err != nil {
			return "", fmt.Errorf("invalid arguments: %w", err)
		}
	default:
		if json.Valid(trimmed) && trimmed[0] == '[' {
			if prog, ok := programSource(trimmed); ok {
				return prog, nil
			}
		}
		code = string(args)
	}
	code = unfence(code)
	if t := strings.TrimSpace(code); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		if prog, ok := programSource([]byte(t)); ok {
			return prog, nil
		}
	}
	if strings.TrimSpace(code) == "" {
		return "", errors.New("empty script: argument code holds no JavaScript")
	}
	return code, nil
}

func unfence(code string) string {
	if m := fence.FindStringSubmatch(strings.TrimSpace(code)); m != nil {
		return m[1]
	}
	return code
}

// programSource turns a JSON tool-call program into a script that makes
// the calls in order and shows each result.
func programSource(raw []byte) (string, bool) {
	var list []map[string]json.RawMessage
	if raw[0] == '[' {
		if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
			return "", false
		}
	} else {
		var one map[string]json.RawMessage
		if json.Unmarshal(raw, &one) != nil {
			return "", false
		}
		if calls, ok := one["tool_calls"]; ok {
			if json.Unmarshal(calls, &list) != nil || len(list) == 0 {
				return "", false
			}
		} else {
			list = []map[string]json.RawMessage{one}
		}
	}
	var sb strings.Builder
	for _, c := range list {
		if fn, ok := c["function"]; ok { // OpenAI's {"function": {"name", "arguments"}}
			var inner map[string]json.RawMessage
			if json.Unmarshal(fn, &inner) != nil {
				return "", false
			}
			c = inner
		}
		name := firstString(c, "tool", "name", "toolName", "tool_name")
		if name == "" {
			return "", false
		}
		args := firstRaw(c, "args", "arguments", "input", "parameters", "params")
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		// "arguments" is often a JSON string holding the object.
		var s string
		if json.Unmarshal(args, &s) == nil {
			args = json.RawMessage(s)
		}
		if !json.Valid(args) {
			return "", false
		}
		fmt.Fprintf(&sb, "text(await tools[%s](%s));\n", strconv.Quote(name), args)
	}
	return sb.String(), true
}

func firstString(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func firstRaw(m map[string]json.RawMessage, keys ...string) json.RawMessage {
	for _, k := range keys {
		if raw, ok := m[k]; ok {
			return raw
		}
	}
	return nil
}

var optionsLine = regexp.MustCompile(`^\s*//\s*@options:\s*(.*)$`)

// SplitOptions reads the optional first-line options and returns the
// source with that line blanked, so error line numbers still match.
func SplitOptions(code string) (string, Options, error) {
	var o Options
	first, rest, hasRest := strings.Cut(code, "\n")
	m := optionsLine.FindStringSubmatch(strings.TrimRight(first, "\r"))
	if m == nil {
		return code, o, nil
	}
	if !hasRest || strings.TrimSpace(rest) == "" {
		return "", o, errors.New("the // @options: line must be followed by code")
	}
	dec := json.NewDecoder(strings.NewReader(m[1]))
	dec.DisallowUnknownFields()
	var raw struct {
		MaxOutputTokens *float64 `json:"max_output_tokens"`
		TimeoutMs       *float64 `json:"timeout_ms"`
	}
	if err := dec.Decode(&raw); err != nil {
		return "", o, fmt.Errorf("invalid // @options: line (fields: max_output_tokens, timeout_ms): %w", err)
	}
	if raw.MaxOutputTokens != nil {
		if v := *raw.MaxOutputTokens; v < 1 || v != float64(int(v)) {
			return "", o, fmt.Errorf("// @options: max_output_tokens must be a positive integer, got %v", v)
		}
		o.MaxOutputTokens = int(*raw.MaxOutputTokens)
	}
	if raw.TimeoutMs != nil {
		if v := *raw.TimeoutMs; v < 1 || v != float64(int(v)) {
			return "", o, fmt.Errorf("// @options: timeout_ms must be a positive integer, got %v", v)
		}
		o.TimeoutMs = int(*raw.TimeoutMs)
	}
	return "\n" + rest, o, nil
}
