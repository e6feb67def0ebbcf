package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/tui/editor"
)

func TestFileCompleter(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "internal", "tui"), 0o755)
	os.WriteFile(filepath.Join(root, "internal", "tools.go"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), nil, 0o644)
	os.WriteFile(filepath.Join(root, ".hidden"), nil, 0o644)
	f := &FileCompleter{Root: root}
	got := f.Complete(editor.CompletionRequest{Kind: editor.CompleteFile, Prefix: "internal/t"})
	if len(got) != 2 || got[0].Value != "internal/tui/" || !got[0].Continue || got[1].Value != "internal/tools.go" {
		t.Fatalf("%+v", got)
	}
	if got := f.Complete(editor.CompletionRequest{Kind: editor.CompleteFile, Prefix: ""}); len(got) != 2 {
		t.Fatalf("root listing hides dotfiles: %+v", got)
	}
	if got := f.Complete(editor.CompletionRequest{Kind: editor.CompleteFile, Prefix: ".h"}); len(got) != 1 {
		t.Fatalf("dot prefix: %+v", got)
	}
}

func TestFileCompleterSearchesProject(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "internal", "tui", "editor"), 0o755)
	os.MkdirAll(filepath.Join(root, "node_modules", "x"), 0o755)
	os.WriteFile(filepath.Join(root, "internal", "tui", "editor", "editor.go"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "internal", "tui", "model_editor.go"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "node_modules", "x", "editor.js"), nil, 0o644)
	f := &FileCompleter{Root: root}
	got := f.Complete(editor.CompletionRequest{Kind: editor.CompleteFile, Prefix: "edit"})
	if len(got) != 2 || got[0].Value != "internal/tui/editor/editor.go" || got[1].Value != "internal/tui/model_editor.go" {
		t.Fatalf("%+v", got)
	}
}
