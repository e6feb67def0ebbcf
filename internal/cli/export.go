package cli

import (
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/export"
)

// runExport handles --export IN [OUT].
func runExport(a *Args, cwd string, stdout io.Writer) (int, error) {
	if len(a.Export) == 0 {
		return 1, usageErr("--export requires a session file")
	}
	in := a.Export[0]
	out := ""
	if len(a.Export) > 1 {
		out = a.Export[1]
	} else if len(a.Messages) > 0 {
		out = a.Messages[0]
	}
	path, err := export.File(in, out)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "Exported to: %s\n", path)
	return 0, nil
}

func exportHTML(rt *app.Runtime, outputPath string) (string, error) {
	return export.Session(rt.Session(), outputPath)
}
