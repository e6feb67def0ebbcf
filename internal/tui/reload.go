package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// appReload is /reload on an app.Runtime: it re-reads settings,
// keybindings, themes, context files, skills and prompt templates, installs
// the new resources and reports what changed.
func appReload(rt *app.Runtime, ar *AppRuntime, o AppOptions) func() (ReloadResult, error) {
	return func() (ReloadResult, error) {
		cwd := rt.Session().Cwd()
		ro := resourceOptions(rt, o)
		st, diags := settings.Load(settings.LoadOptions{AgentDir: o.AgentDir, Cwd: cwd, ProjectTrusted: ro.ProjectTrusted})
		// The mode cannot change while running; the settings files' theme
		// wins over a --theme flag from now on.
		if o.Settings != nil {
			st.TUIMode = o.Settings.TUIMode
		}
		fresh := OptionsFromSettings(st, o.AgentDir, o.Env)
		applyThemePaths(&fresh, o.ThemePaths)
		r := ReloadResult{Keymap: fresh.Keymap, CustomThemes: fresh.CustomThemes, ThemeSetting: fresh.ThemeSetting,
			Warnings: fresh.StartupWarnings, Settings: &fresh}
		for _, d := range diags {
			r.Warnings = append(r.Warnings, d.String())
		}
		ar.mu.Lock()
		ar.Settings, ar.changed = st, nil
		ar.mu.Unlock()

		ro.Settings = st
		old := o.Loaded.Get()
		set := app.LoadResources(ro)
		o.Loaded.Set(set)
		r.Notes = append(r.Notes, resourceChanges(old, set)...)
		for _, d := range set.Diagnostics {
			r.Warnings = append(r.Warnings, d.String())
		}
		for _, c := range o.Commands.All(commands.Prompt, commands.Skill, commands.Extension) {
			r.Commands = append(r.Commands, Command{Name: c.Name, Description: c.Description})
		}
		if r.Commands == nil {
			r.Commands = []Command{} // non-nil: the list is replaced even when empty
		}

		// Context files are read again for every request; list what the
		// next one will use.
		var files []string
		for _, f := range app.LoadContextFiles(o.AgentDir, cwd) {
			files = append(files, f.Path)
		}
		if len(files) == 0 {
			r.Notes = append(r.Notes, "Context files: none")
		} else {
			r.Notes = append(r.Notes, "Context files: "+strings.Join(files, ", "))
		}
		return r, nil
	}
}

// resourceOptions are the options the resources were loaded with at
// start: AppOptions.Resources when the composition root passes them;
// otherwise rebuilt from the trust state and the previous set (--skill and
// --prompt-template paths are the CLI-sourced entries; -ns/-np are not
// known then and count as off).
func resourceOptions(rt *app.Runtime, o AppOptions) app.ResourceOptions {
	if o.Resources != nil {
		return *o.Resources
	}
	ro := app.ResourceOptions{Cwd: rt.Session().Cwd(), AgentDir: o.AgentDir}
	ti := app.TrustState(rt.Session().Cwd(), o.AgentDir)
	ro.ProjectTrusted = !ti.Needed || ti.Saved != nil && ti.Saved.Trusted || ti.Default == settings.TrustAlways
	if set := o.Loaded.Get(); set != nil {
		for _, s := range set.Skills {
			if s.Source.Source == resources.SourceCLI {
				ro.SkillPaths = append(ro.SkillPaths, s.FilePath)
			}
			if s.Source.Scope == resources.ScopeProject {
				ro.ProjectTrusted = true
			}
		}
		for _, t := range set.Templates {
			if t.Source.Source == resources.SourceCLI {
				ro.PromptPaths = append(ro.PromptPaths, t.Source.Path)
			}
			if t.Source.Scope == resources.ScopeProject {
				ro.ProjectTrusted = true
			}
		}
	}
	return ro
}

// resourceChanges lists skills and templates added or removed.
func resourceChanges(old, cur *resources.Set) []string {
	names := func(set *resources.Set) (skills, tpls map[string]bool) {
		skills, tpls = map[string]bool{}, map[string]bool{}
		if set == nil {
			return
		}
		for _, s := range set.Skills {
			skills[s.Name] = true
		}
		for _, t := range set.Templates {
			tpls["/"+t.Name] = true
		}
		return
	}
	os, ot := names(old)
	ns, nt := names(cur)
	var out []string
	diff := func(kind string, before, after map[string]bool) {
		var added, removed []string
		for n := range after {
			if !before[n] {
				added = append(added, n)
			}
		}
		for n := range before {
			if !after[n] {
				removed = append(removed, n)
			}
		}
		sort.Strings(added)
		sort.Strings(removed)
		line := fmt.Sprintf("%s: %d", kind, len(after))
		if len(added) > 0 {
			line += " · added " + strings.Join(added, ", ")
		}
		if len(removed) > 0 {
			line += " · removed " + strings.Join(removed, ", ")
		}
		if len(added) == 0 && len(removed) == 0 {
			line += " (unchanged)"
		}
		out = append(out, line)
	}
	diff("Skills", os, ns)
	diff("Prompt templates", ot, nt)
	return out
}

// applyLive applies the settings that can change while running and names
// the ones that changed; tuiMode needs a restart.
func (m *Model) applyLive(n *Options) (changed []string) {
	o := &m.opts
	set := func(name string, differs bool, apply func()) {
		if differs {
			apply()
			changed = append(changed, name)
		}
	}
	rerender := false
	set("hideThinkingBlock", o.HideThinkingBlock != n.HideThinkingBlock, func() {
		o.HideThinkingBlock = n.HideThinkingBlock
		m.tr.SetThinkingHidden(n.HideThinkingBlock)
	})
	set("outputPad", o.OutputPad != n.OutputPad, func() { o.OutputPad = n.OutputPad; m.tr.SetOutputPad(n.OutputPad) })
	set("editorPaddingX", o.EditorPaddingX != n.EditorPaddingX, func() { o.EditorPaddingX = n.EditorPaddingX })
	set("autocompleteMaxVisible", o.AutocompleteMaxVisible != n.AutocompleteMaxVisible, func() {
		o.AutocompleteMaxVisible = n.AutocompleteMaxVisible
		m.ed.SetMaxVisible(n.AutocompleteMaxVisible)
	})
	set("showHardwareCursor", o.ShowHardwareCursor != n.ShowHardwareCursor, func() { o.ShowHardwareCursor = n.ShowHardwareCursor })
	set("doubleEscapeAction", o.DoubleEscapeAction != n.DoubleEscapeAction, func() { o.DoubleEscapeAction = n.DoubleEscapeAction })
	set("treeFilterMode", o.TreeFilterMode != n.TreeFilterMode, func() { o.TreeFilterMode = n.TreeFilterMode })
	set("branchSummary.skipPrompt", o.BranchSummarySkip != n.BranchSummarySkip, func() { o.BranchSummarySkip = n.BranchSummarySkip })
	set("fullscreenScrollbar", o.FullscreenScrollbar != n.FullscreenScrollbar, func() { o.FullscreenScrollbar = n.FullscreenScrollbar })
	set("fullscreenWheelScrollLines", o.FullscreenWheelLines != n.FullscreenWheelLines, func() { o.FullscreenWheelLines = n.FullscreenWheelLines })
	set("fullscreenCopyOnSelect", o.CopyOnSelect != n.CopyOnSelect, func() { o.CopyOnSelect = n.CopyOnSelect })
	set("fullscreenExitOutput", o.FullscreenExitOutput != n.FullscreenExitOutput, func() { o.FullscreenExitOutput = n.FullscreenExitOutput })
	set("terminal.showTerminalProgress", o.TerminalProgress != n.TerminalProgress, func() { o.TerminalProgress = n.TerminalProgress })
	set("terminal.clearOnShrink", o.ClearOnShrink != n.ClearOnShrink, func() { o.ClearOnShrink = n.ClearOnShrink })
	set("externalEditor", o.ExternalEditor != n.ExternalEditor, func() { o.ExternalEditor = n.ExternalEditor })
	set("markdown.codeBlockIndent", o.CodeBlockIndent != n.CodeBlockIndent, func() { o.CodeBlockIndent = n.CodeBlockIndent; rerender = true })
	set("markdown.mermaid", o.Mermaid != n.Mermaid, func() { o.Mermaid = n.Mermaid; rerender = true })
	set("terminal.hyperlinks", o.Hyperlinks != n.Hyperlinks, func() { o.Hyperlinks = n.Hyperlinks; rerender = true })
	img := n.Images
	img.Placeholders = m.fullscreen && img.Protocol == transcript.ProtocolKitty
	set("terminal.images", o.Images != img, func() { o.Images = img; m.tr.SetImages(img) })
	if n.Fullscreen != o.Fullscreen {
		changed = append(changed, "tuiMode (applies at the next start)")
	}
	if rerender {
		m.setTheme(m.th) // rebuilds the markdown renderer with the new options
	}
	return changed
}
