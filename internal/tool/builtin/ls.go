package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type lsArgs struct {
	Path  string  `json:"path,omitempty" jsonschema:"Directory to list (default: current directory)"`
	Limit float64 `json:"limit,omitempty" jsonschema:"Maximum number of entries to return (default: 500)"`
}

var lsSchema = sync.OnceValue(tool.SchemaFor[lsArgs])

const lsDefaultLimit = 500

// LsDetails is the ls tool's details object.
type LsDetails struct {
	Truncation        *tool.Truncation `json:"truncation,omitempty"`
	EntryLimitReached int              `json:"entryLimitReached,omitempty"`
}

type lsTool struct{ env Env }

func (t *lsTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: "ls",
		Description: "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. " +
			"Includes dotfiles. " + outputLimitNote(lsDefaultLimit, "entries"),
		Parameters: lsSchema(),
	})
}

func (t *lsTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	a := tool.ParseArgs("ls", raw)
	path := a.String("path", false)
	limit := positiveLimit(a, lsDefaultLimit)
	dir, _, r := searchRoot(a, path, t.env.Cwd, rootOptions{dirOnly: true, statDetail: true})
	if r != nil {
		return *r
	}
	f, err := os.Open(dir)
	if err != nil {
		return tool.Errorf("Cannot read directory: %s", errCode(err))
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return tool.Errorf("Cannot read directory: %s", errCode(err))
	}
	if ctx.Err() != nil {
		return tool.Error("Operation aborted")
	}
	slices.SortFunc(names, compareNames)
	var out []string
	limitReached := false
	for _, name := range names {
		if len(out) >= limit {
			limitReached = true
			break
		}
		est, err := os.Stat(filepath.Join(dir, name)) // follows symlinks, like the original
		if err != nil {
			continue // entries we cannot stat are skipped
		}
		if est.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return tool.Text("(empty directory)")
	}
	var limitNotice string
	if limitReached {
		limitNotice = fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2)
	}
	return listResult(out, limitNotice, "", func(tr *tool.Truncation) any {
		d := LsDetails{Truncation: tr}
		if limitReached {
			d.EntryLimitReached = limit
		}
		return d
	})
}

// compareNames orders names case-insensitively the way a locale collation
// does: punctuation and symbols first, then digits, then letters; names that
// differ only in case keep a fixed order.
func compareNames(a, b string) int {
	if c := compareFolded(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func compareFolded(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		ra, rb = unicode.ToLower(ra), unicode.ToLower(rb)
		if ra != rb {
			ca, cb := runeClass(ra), runeClass(rb)
			if ca != cb {
				return ca - cb
			}
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

func runeClass(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return 2
	case unicode.IsDigit(r):
		return 1
	}
	return 0
}
