package resources

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is the YAML mapping between the leading "---" lines of a
// Markdown file.
type Frontmatter map[string]any

// String returns key's value when it is a string.
func (f Frontmatter) String(key string) (string, bool) {
	s, ok := f[key].(string)
	return s, ok
}

// Bool reports whether key is the boolean true.
func (f Frontmatter) Bool(key string) bool {
	b, ok := f[key].(bool)
	return ok && b
}

// ParseFrontmatter splits content into its frontmatter and its body.
// Without a leading "---" line (or without the closing one) the whole
// content is the body and the frontmatter is empty. The body is trimmed.
// A frontmatter that is not a YAML mapping is an error.
func ParseFrontmatter(content string) (Frontmatter, string, error) {
	s := strings.ReplaceAll(strings.TrimPrefix(content, "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(s, "---") {
		return Frontmatter{}, strings.TrimSpace(s), nil
	}
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return Frontmatter{}, strings.TrimSpace(s), nil
	}
	end += 3
	head := ""
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && nl < end {
		head = s[nl+1 : end]
	}
	body := strings.TrimSpace(s[min(end+4, len(s)):])
	if fm, ok := simpleFrontmatter(head); ok {
		return fm, body, nil
	}
	var v any
	if err := yaml.Unmarshal([]byte(head), &v); err != nil {
		return nil, body, fmt.Errorf("invalid frontmatter: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch m := v.(type) {
	case nil:
		return Frontmatter{}, body, nil
	case map[string]any:
		return Frontmatter(m), body, nil
	}
	return nil, body, fmt.Errorf("invalid frontmatter: not a mapping")
}

// simpleFrontmatter parses the common case, flat "key: plain value" lines,
// without the YAML parser (a few microseconds per file add up at start-up
// with hundreds of skills). It gives up (ok false) on anything whose YAML
// meaning is not a plain string, true/false or null: quotes, block
// scalars, nesting, flow collections, comments after values, numbers and
// other tagged forms; the YAML parser then decides.
func simpleFrontmatter(head string) (Frontmatter, bool) {
	fm := Frontmatter{}
	for _, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" || line[0] == '#' {
			continue
		}
		key, value, found := strings.Cut(line, ":")
		if !found || !simpleKey(key) {
			return nil, false
		}
		if _, dup := fm[key]; dup {
			return nil, false
		}
		if value != "" && value[0] != ' ' {
			return nil, false // "a:b" is one plain scalar, not a pair
		}
		value = strings.TrimRight(strings.TrimLeft(value, " "), " ")
		v, ok := simpleScalar(value)
		if !ok {
			return nil, false
		}
		fm[key] = v
	}
	return fm, true
}

func simpleKey(k string) bool {
	if k == "" || !(k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z' || k[0] == '_') {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func simpleScalar(v string) (any, bool) {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return nil, true
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`=+.0123456789", rune(v[0])) ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return nil, false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return nil, false
		}
	}
	if strings.ContainsAny(v, "\u0085\u00a0\u2028\u2029\ufeff") {
		return nil, false
	}
	return v, true
}
