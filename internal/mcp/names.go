package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxToolNameLength is the providers' limit on tool names.
const maxToolNameLength = 64

// Namespace is the prefix of a server's tools, `mcp__<server>` with `-`
// replaced by `_`; codemode scripts name servers by it.
func Namespace(server string) string {
	return "mcp__" + strings.ReplaceAll(server, "-", "_")
}

func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	// Multi-byte characters became one '_' per byte; that is still a valid,
	// stable name, and the hash suffix separates any collisions.
	return string(b)
}

// ToolName is `mcp__<server>__<tool>` with every character other than
// letters, digits and `_` replaced by `_`. Names longer than 64 characters,
// or taken by another tool (two server tools that sanitize alike), are cut
// and get an 8-hex-digit hash of server and tool.
func ToolName(server, tool string, taken func(string) bool) string {
	name := sanitizeName("mcp__" + server + "__" + tool)
	if len(name) <= maxToolNameLength && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:8]
	if len(name) > maxToolNameLength-len(h)-1 {
		name = name[:maxToolNameLength-len(h)-1]
	}
	return name + "_" + h
}

// toolNames names every tool of a server. Tools whose sanitized names
// collide all get the hash suffix, so the result does not depend on the
// order the server lists them in.
func toolNames(server string, tools []string, takenElsewhere func(string) bool) []string {
	count := map[string]int{}
	for _, t := range tools {
		count[sanitizeName("mcp__"+server+"__"+t)]++
	}
	out := make([]string, len(tools))
	used := map[string]bool{}
	for i, t := range tools {
		plain := sanitizeName("mcp__" + server + "__" + t)
		taken := func(n string) bool {
			return count[n] > 1 || used[n] || (takenElsewhere != nil && takenElsewhere(n))
		}
		if count[plain] > 1 {
			taken = func(string) bool { return true }
		}
		out[i] = ToolName(server, t, taken)
		used[out[i]] = true
	}
	return out
}
