package models_test

import (
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
)

func ExampleFormatList() {
	list := []*llm.Model{
		{Provider: "ollama", ID: "qwen2.5-coder:7b", ContextWindow: 128000, MaxTokens: 16384, Input: []string{"text"}},
		{Provider: "anthropic", ID: "claude-opus-4-8", ContextWindow: 1000000, MaxTokens: 128000, Reasoning: true, Input: []string{"text", "image"}},
	}
	var b strings.Builder
	models.FormatList(&b, list, "")
	// Every column is padded (trailing spaces included); trimmed here only
	// because example output comments cannot hold them.
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
	// Output:
	// provider   model             context  max-out  thinking  images
	// anthropic  claude-opus-4-8   1M       128K     yes       yes
	// ollama     qwen2.5-coder:7b  128K     16.4K    no        no
}
