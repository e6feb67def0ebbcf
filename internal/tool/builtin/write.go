package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"Path to the file to write (relative or absolute)"`
	Content string `json:"content" jsonschema:"Content to write to the file"`
}

var writeSchema = sync.OnceValue(tool.SchemaFor[writeArgs])

type writeTool struct{ env Env }

func (t *writeTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name:        "write",
		Description: "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
		Parameters:  writeSchema(),
	})
}

func (t *writeTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("write", raw)
	path := a.String("path", true)
	content := a.String("content", true)
	if path == "" && a.Has("path") {
		a.Fail("path", "must not be empty")
	}
	if r := a.Err(); r != nil {
		return *r
	}
	abs := resolvePath(path, t.env.Cwd)
	unlock, err := lockFile(ctx, abs)
	if err != nil {
		return tool.Error("Operation aborted")
	}
	defer unlock()
	if ctx.Err() != nil {
		return tool.Error("Operation aborted")
	}
	target, err := fsx.ResolveLinks(abs)
	if err != nil {
		return tool.Errorf("Could not write file: %s. Error code: %s.", path, errCode(err))
	}
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return tool.Errorf("Could not write file: %s. It is a directory.", path)
	} else if err == nil && !st.Mode().IsRegular() {
		return tool.Errorf("Could not write file: %s. It is a %s, not a regular file.", path, fsx.Kind(st.Mode()))
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return tool.Errorf("Could not write file: %s. Error code: %s.", path, errCode(err))
	}
	if _, err := replaceFile(target, []byte(content), nil); err != nil {
		return tool.Errorf("Could not write file: %s. Error code: %s.", path, errCode(err))
	}
	return tool.Text("Successfully wrote to " + path)
}
