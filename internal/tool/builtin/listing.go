package builtin

import (
	"fmt"
	"os"
	"strings"

	"github.com/relay-agent/relay/internal/tool"
)

// find, ls and grep share their argument tail (an optional path and limit)
// and their result shape (a head-truncated list with bracketed notices);
// the helpers here keep the three tools' texts in one place.

// positiveLimit reads an optional limit argument (default def, at least 1).
func positiveLimit(a *tool.Args, def int) int {
	n, ok := a.Int("limit")
	if !ok {
		return def
	}
	if n < 1 {
		a.Fail("limit", "expected a positive integer, got %d", n)
		return def
	}
	return n
}

// outputLimitNote is the sentence ending the three tools' descriptions.
func outputLimitNote(limit int, unit string) string {
	return fmt.Sprintf("Output is truncated to %d %s or %dKB (whichever is hit first).", limit, unit, tool.DefaultMaxBytes/1024)
}

// rootOptions says how searchRoot treats the resolved path.
type rootOptions struct {
	// dirOnly rejects a path that is not a directory.
	dirOnly bool
	// statDetail reports stat failures other than a missing path as
	// "Cannot read directory" instead of "Path not found".
	statDetail bool
}

// searchRoot returns the argument error collected in a, if any; otherwise
// it resolves the optional path argument (default: the working directory)
// against cwd and stats it. A non-nil result is the tool's answer.
func searchRoot(a *tool.Args, path, cwd string, o rootOptions) (string, os.FileInfo, *tool.Result) {
	if r := a.Err(); r != nil {
		return "", nil, r
	}
	if path == "" {
		path = "."
	}
	root := resolvePath(path, cwd)
	st, err := os.Stat(root)
	if err != nil {
		r := tool.Errorf("Path not found: %s", root)
		if o.statDetail && !os.IsNotExist(err) {
			r = tool.Errorf("Cannot read directory: %v", err)
		}
		return root, nil, &r
	}
	if o.dirOnly && !st.IsDir() {
		r := tool.Errorf("Not a directory: %s", root)
		return root, nil, &r
	}
	return root, st, nil
}

// listResult joins lines, keeps the head within the default byte budget and
// appends the notices in this order: limitNotice, the byte-limit notice,
// lineNotice (empty ones are left out). details builds the details object
// from the truncation (nil when the text fits); it is attached only when a
// notice is shown.
func listResult(lines []string, limitNotice, lineNotice string, details func(*tool.Truncation) any) tool.Result {
	tr := tool.TruncateHead(strings.Join(lines, "\n"), tool.Limits{MaxLines: tool.NoLineLimit})
	var notices []string
	if limitNotice != "" {
		notices = append(notices, limitNotice)
	}
	var trunc *tool.Truncation
	if tr.Truncated {
		notices = append(notices, tool.FormatSize(tool.DefaultMaxBytes)+" limit reached")
		trunc = &tr
	}
	if lineNotice != "" {
		notices = append(notices, lineNotice)
	}
	if len(notices) == 0 {
		return tool.Text(tr.Content)
	}
	r := tool.Text(tr.Content + "\n\n[" + strings.Join(notices, ". ") + "]")
	r.Details = details(trunc)
	return r
}
