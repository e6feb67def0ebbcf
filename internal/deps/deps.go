//go:build tools

// Package deps pins the chosen libraries of design.md in go.mod before every
// package that uses them exists. It is never built into relay.
package deps

import (
	_ "charm.land/bubbles/v2/key"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/alecthomas/chroma/v2"
	_ "github.com/alecthomas/kong"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/charlievieth/fastwalk"
	_ "github.com/charmbracelet/x/ansi"
	_ "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/google/uuid"
	_ "github.com/wasilibs/go-re2"
	_ "github.com/yuin/goldmark"
)
