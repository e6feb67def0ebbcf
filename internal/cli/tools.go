package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/relay-agent/relay/internal/codemode"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/tool/builtin"
	"github.com/relay-agent/relay/internal/toolsearch"
)

// buildTools registers the built-in tools and selects the active ones:
// defaultTools, then --tools / --no-tools / --no-builtin-tools / -xt.
// Unknown names in the selection come back as warnings.
//
// When nothing is active the registry is left empty: the runtime declares
// every registered tool to the model when the active list is empty, so an
// empty registry is what makes -nt (and -nbt, -t with only unknown names,
// defaultTools: []) send no tools at all. relay has no extension or SDK
// tools yet, so -nbt and -nt are the same.
//
// The tools learn the run that calls them (model, thinking level, session)
// from the call's context (tool.TurnFrom), so nothing here waits for the
// runtime.
func buildTools(a *Args, st *settings.Settings, cwd string) (*tool.Registry, []string, []string) {
	env := builtinEnv(st, cwd)
	known := builtin.Names()
	for _, x := range scriptTools {
		if !builtinDisabled(st, x.builtin) {
			known = append(known, x.tool)
		}
	}
	valid, warns := selectTools(a, st.DefaultTools, known)
	reg, _ := tool.NewRegistry()
	if len(valid) == 0 {
		return reg, nil, warns
	}
	for _, n := range builtin.Names() {
		if t, err := builtin.New(n, env); err == nil {
			_ = reg.Add(t)
		}
	}
	return reg, valid, warns
}

// addScriptTools registers the built-in extensions' tools, codemode and
// tool_search (inactive unless selected; active is the selection they
// read and change), and returns the tools to declare to the model. codemode.mode "only" hides the active direct
// tools, which scripts still call; "on" keeps them declared with a note on
// calling them from scripts.
func addScriptTools(reg *tool.Registry, active []string, st *settings.Settings, seam *hooks.Set, catalog codemode.ModelCatalog, loadout *tool.Active) []string {
	if len(active) == 0 {
		// Nothing is declared (-nt, defaultTools: []): see buildTools.
		return active
	}
	selected := append([]string(nil), active...)
	codemodeOn := slices.Contains(active, codemode.Name)
	only := codemodeOn && st.Codemode.Mode == "only"
	cfg := codemode.Config{Tools: reg, Hooks: seam, Models: catalog,
		Mode:         func() string { return st.Codemode.Mode },
		InlineBudget: func() int { return st.Codemode.InlineBudget },
		Active: func() []string {
			if only {
				return append(loadout.Names(), selected...)
			}
			return loadout.Names()
		},
	}
	if codemodeOn && !only {
		for _, n := range active {
			if t, ok := reg.Get(n); ok && tool.ExposureOf(t) == tool.ExposeDirect {
				reg.Replace(codemode.Annotate(t))
			}
		}
	}
	// "-builtin:codemode" and "-builtin:tool-search" in the extensions
	// setting leave them out (buildTools already refused to select them).
	if !builtinDisabled(st, "codemode") {
		_ = reg.Add(codemode.New(cfg))
	}
	if !builtinDisabled(st, "tool-search") {
		_ = reg.Add(toolsearch.New(reg, loadout))
	}
	if !only {
		return active
	}
	var declared []string
	for _, n := range active {
		t, ok := reg.Get(n)
		if n == codemode.Name || n == toolsearch.Name || (ok && tool.ExposureOf(t) != tool.ExposeDirect) {
			declared = append(declared, n)
		}
	}
	return declared
}

// scriptTools are the tools of the built-in extensions, by the name the
// extensions setting turns them off with.
var scriptTools = []struct{ builtin, tool string }{{"codemode", codemode.Name}, {"tool-search", toolsearch.Name}}

// selectTools applies the tool flags to the settings' defaultTools and keeps
// the names that exist in known.
func selectTools(a *Args, defaults, known []string) (active, warnings []string) {
	sel := defaults
	if a.ToolsSet {
		sel = a.Tools
	}
	if a.NoTools || a.NoBuiltin {
		sel = nil
	}
	ex := map[string]bool{}
	for _, n := range a.ExcludeTools {
		ex[n] = true
	}
	isKnown := map[string]bool{}
	for _, n := range known {
		isKnown[n] = true
	}
	seen := map[string]bool{}
	for _, n := range sel {
		switch {
		case !isKnown[n]:
			warnings = append(warnings, fmt.Sprintf("unknown tool %q ignored (available: %s)", n, strings.Join(known, ", ")))
		case ex[n] || seen[n]:
		default:
			seen[n] = true
			active = append(active, n)
		}
	}
	return active, warnings
}

// builtinEnv is the built-in tools' environment from the settings; the
// extension host's tool factories (createBashTool, ...) run the built-ins
// with it too.
func builtinEnv(st *settings.Settings, cwd string) builtin.Env {
	return builtin.Env{Cwd: cwd, ShellPath: st.ShellPath, ShellCommandPrefix: st.ShellCommandPrefix,
		ImagesAutoResize: st.Images.AutoResize, ImagesBlock: st.Images.BlockImages}
}
