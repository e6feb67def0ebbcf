package resources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// The fast path must agree with the YAML parser on everything it accepts.
func TestSimpleFrontmatterMatchesYAML(t *testing.T) {
	heads := []string{
		"name: pdf-tools\ndescription: Extract text and tables from PDF files. Use when reading PDFs.",
		"description: Manual only.\ndisable-model-invocation: true",
		"disable-model-invocation: False\nx: TRUE\ny: null\nz: ~\nw:",
		"# comment\nname: a\n\ndescription: b c d",
		"description: has a colon:inside and a hash#inside",
		"description: ends with colon:",
		"description: a: b",
		"description: text # comment",
		"description: 'quoted'",
		"description: \"double\"",
		"description: >\n  folded",
		"description: |\n  literal",
		"metadata:\n  author: me",
		"tools: [read, bash]",
		"tools:\n  - read",
		"n: 123",
		"n: 1.5",
		"n: .inf",
		"n: 0x1f",
		"n: 2024-01-01",
		"n: yes",
		"n: no",
		"n: on",
		"n: off",
		"n: y",
		"n: =",
		"n: <<",
		"<<: x",
		"a:b",
		"a: b\na: c",
		"1: x",
		"- a",
		"key with space: v",
		"name: café — déjà vu",
		"name: tab\there",
		"description: trailing spaces   ",
		"description:    leading spaces",
		"description: !tag x",
		"description: &anchor x",
		"description: *alias",
		"description: %x",
		"description: @x",
		"description: `x",
		"description: {a: b}",
		"description: a, b, c",
		"description: 100% sure",
		"description: x\n  continued on the next line",
		"description: x\n...",
		"description: x\n---",
	}
	for _, h := range heads {
		fast, ok := simpleFrontmatter(h)
		if !ok {
			continue
		}
		var v any
		if err := yaml.Unmarshal([]byte(h), &v); err != nil {
			t.Errorf("fast path accepted %q, YAML rejects it: %v", h, err)
			continue
		}
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if diff := cmp.Diff(map[string]any(m), map[string]any(fast)); diff != "" {
			t.Errorf("%q (-yaml +fast):\n%s", h, diff)
		}
	}
	for _, h := range []string{heads[0], heads[1], heads[2], heads[3], heads[4]} {
		if _, ok := simpleFrontmatter(h); !ok {
			t.Errorf("fast path refused %q", h)
		}
	}
}
