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
