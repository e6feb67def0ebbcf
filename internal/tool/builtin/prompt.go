package builtin

import "github.com/relay-agent/relay/internal/llm"

// The built-in tools' lines in the default system prompt: a one-line
// summary in the tools section and bullets in the rules section. They
// travel on the tool's spec, so a tool that replaces a built-in one (an
// extension's read) brings its own or none, as the original documents.
var (
	promptSnippets = map[string]string{
		"read":       "Read file contents",
		"bash":       "Execute bash commands (ls, grep, find, etc.)",
		"powershell": "Execute PowerShell commands",
		"edit":       "Make precise edits to files (exact text replacement, several disjoint edits per call)",
		"write":      "Create or overwrite files",
		"grep":       "Search file contents for patterns (respects .gitignore)",
		"find":       "Find files by glob pattern (respects .gitignore)",
		"ls":         "List directory contents",
	}
	promptGuidelines = map[string][]string{
		"read":       {"Use read to examine files instead of cat or sed."},
		"bash":       {"Relay sets RELAY_SESSION_ID, RELAY_SESSION_FILE, RELAY_PROVIDER, RELAY_MODEL and RELAY_REASONING_LEVEL in the environment of bash commands; inspect them when useful."},
		"powershell": {"Relay sets RELAY_* environment variables for PowerShell commands; inspect them when useful."},
		"edit": {
			"Use edit for precise changes: each oldText must match exactly one region of the original file.",
			"Put several disjoint changes to one file in a single edit call; edits are matched against the original file and must not overlap.",
			"Keep oldText minimal but unique.",
		},
		"write": {"Use write only for new files or complete rewrites."},
		"grep":  {"grep respects .gitignore."},
		"find":  {"find respects .gitignore."},
	}
)

func withPrompt(s llm.ToolSpec) llm.ToolSpec {
	s.PromptSnippet = promptSnippets[s.Name]
	s.PromptGuidelines = promptGuidelines[s.Name]
	return s
}
