package app

import (
	"runtime/debug"
	"strings"

	"github.com/relay-agent/relay/internal/changelog"
)

// relayVersion is the version the binary was built as. cli.Version is set
// with -ldflags -X, which the build info records; app cannot import cli,
// so it reads the flag from there, then the module version, then the
// changelog's newest version marked -dev.
func relayVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key != "-ldflags" {
				continue
			}
			for _, f := range strings.Fields(s.Value) {
				if _, v, ok := strings.Cut(f, "/internal/cli.Version="); ok && v != "" {
					return strings.Trim(v, `"'`)
				}
			}
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	if v := changelog.Latest(); v != "" {
		return v + "-dev"
	}
	return "dev"
}
