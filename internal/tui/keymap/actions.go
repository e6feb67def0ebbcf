package keymap

// Platform selects the platform variants of the default bindings.
type Platform int

const (
	Unix    Platform = iota // Linux, macOS and other Unix terminals
	Windows                 // native Windows consoles
	WSL                     // Windows Subsystem for Linux
)

// Scope groups actions that are active on the same screen; keys only
// conflict between scopes that are active together.
type Scope string

const (
	ScopeEditor    Scope = "editor"    // tui.editor.*, tui.input.*
	ScopeSelect    Scope = "select"    // tui.select.*
	ScopeAltScreen Scope = "altScreen" // tui.altScreen.*
	ScopeApp       Scope = "app"       // application actions on the main screen
	ScopeSession   Scope = "session"   // /resume picker
	ScopeModels    Scope = "models"    // model and scoped-models selectors
	ScopeTree      Scope = "tree"      // /tree navigator
)

// Action describes one named action.
type Action struct {
	ID          string
	Section     string
	Description string
	Scope       Scope
	// defaults returns the default keys for a platform (spec syntax).
	defaults func(Platform) []string
}

func keys(k ...string) func(Platform) []string { return func(Platform) []string { return k } }

// winWSL returns unix on Unix and win on Windows and WSL.
func winWSL(unix, win []string) func(Platform) []string {
	return func(p Platform) []string {
		if p == Windows || p == WSL {
			return win
		}
		return unix
	}
}

// actions is the table of keybindings.md, in its order. Built lazily by
// callers through Actions() so nothing runs at init.
func actionTable() []Action {
	const (
		cur  = "Cursor movement"
		edit = "Text editing"
		inp  = "Input and selection"
		alt  = "Fullscreen"
		app  = "Application"
		sess = "Sessions"
		mod  = "Models and Thinking"
		disp = "Display and Message Queue"
		tree = "Tree Navigation"
		scop = "Scoped Models Selector"
	)
	none := keys()
	return []Action{
		{"tui.editor.cursorUp", cur, "Move cursor up, browsing older history at the top", ScopeEditor, keys("up")},
		{"tui.editor.cursorDown", cur, "Move cursor down, browsing newer history at the bottom", ScopeEditor, keys("down")},
		{"tui.editor.historyPrevious", cur, "Select the previous prompt history entry", ScopeEditor, none},
		{"tui.editor.historyNext", cur, "Select the next prompt history entry", ScopeEditor, none},
		{"tui.editor.cursorLeft", cur, "Move cursor left", ScopeEditor, keys("left", "ctrl+b")},
		{"tui.editor.cursorRight", cur, "Move cursor right", ScopeEditor, keys("right", "ctrl+f")},
		{"tui.editor.cursorWordLeft", cur, "Move cursor word left", ScopeEditor, keys("alt+left", "ctrl+left", "alt+b")},
		{"tui.editor.cursorWordRight", cur, "Move cursor word right", ScopeEditor, keys("alt+right", "ctrl+right", "alt+f")},
		{"tui.editor.cursorLineStart", cur, "Move to line start", ScopeEditor, keys("home", "ctrl+home", "ctrl+a")},
		{"tui.editor.cursorLineEnd", cur, "Move to line end", ScopeEditor, keys("end", "ctrl+end", "ctrl+e")},
		{"tui.editor.jumpForward", cur, "Jump forward to character", ScopeEditor, keys("ctrl+]")},
		{"tui.editor.jumpBackward", cur, "Jump backward to character", ScopeEditor, keys("ctrl+alt+]")},
		{"tui.editor.pageUp", cur, "Scroll up by page", ScopeEditor, keys("pageUp", "ctrl+pageUp")},
		{"tui.editor.pageDown", cur, "Scroll down by page", ScopeEditor, keys("pageDown", "ctrl+pageDown")},

		{"tui.editor.deleteCharBackward", edit, "Delete character backward", ScopeEditor, keys("backspace")},
		{"tui.editor.deleteCharForward", edit, "Delete character forward", ScopeEditor, keys("delete", "ctrl+d")},
		{"tui.editor.deleteWordBackward", edit, "Delete word backward", ScopeEditor, keys("ctrl+w", "alt+backspace")},
		{"tui.editor.deleteWordForward", edit, "Delete word forward", ScopeEditor, keys("alt+d", "alt+delete")},
		{"tui.editor.deleteToLineStart", edit, "Delete to line start", ScopeEditor, keys("ctrl+u")},
		{"tui.editor.deleteToLineEnd", edit, "Delete to line end", ScopeEditor, keys("ctrl+k")},
		{"tui.editor.yank", edit, "Paste most recently deleted text", ScopeEditor, keys("ctrl+y")},
		{"tui.editor.yankPop", edit, "Cycle through deleted text after yank", ScopeEditor, keys("alt+y")},
		{"tui.editor.undo", edit, "Undo last edit", ScopeEditor, func(p Platform) []string {
			switch p {
			case Windows:
				return []string{"ctrl+z"}
			case WSL:
				return []string{"alt+z"}
			}
			return []string{"ctrl+-"}
		}},

		{"tui.input.newLine", inp, "Insert new line", ScopeEditor, keys("shift+enter", "ctrl+j")},
		{"tui.input.submit", inp, "Submit input", ScopeEditor, keys("enter")},
		{"tui.input.tab", inp, "Tab or autocomplete", ScopeEditor, keys("tab")},
		{"tui.input.copy", inp, "Copy selection", ScopeEditor, keys("ctrl+c")},
		{"tui.select.up", inp, "Move selection up", ScopeSelect, keys("up")},
		{"tui.select.down", inp, "Move selection down", ScopeSelect, keys("down")},
		{"tui.select.pageUp", inp, "Page up in list", ScopeSelect, keys("pageUp")},
		{"tui.select.pageDown", inp, "Page down in list", ScopeSelect, keys("pageDown")},
		{"tui.select.confirm", inp, "Confirm selection", ScopeSelect, keys("enter")},
		{"tui.select.cancel", inp, "Cancel selection", ScopeSelect, keys("escape", "ctrl+c")},

		{"tui.altScreen.pageUp", alt, "Scroll the transcript up by one page", ScopeAltScreen, keys("pageUp")},
		{"tui.altScreen.pageDown", alt, "Scroll the transcript down by one page", ScopeAltScreen, keys("pageDown")},
		{"tui.altScreen.halfPageUp", alt, "Scroll the transcript up by half a page", ScopeAltScreen, none},
		{"tui.altScreen.halfPageDown", alt, "Scroll the transcript down by half a page", ScopeAltScreen, none},
		{"tui.altScreen.lineUp", alt, "Scroll the transcript up by one line", ScopeAltScreen, none},
		{"tui.altScreen.lineDown", alt, "Scroll the transcript down by one line", ScopeAltScreen, none},
		{"tui.altScreen.previousPrompt", alt, "Jump to the previous marked message", ScopeAltScreen,
			winWSL([]string{"ctrl+shift+up"}, []string{"ctrl+shift+up", "ctrl+up"})},
		{"tui.altScreen.nextPrompt", alt, "Jump to the next marked message", ScopeAltScreen,
			winWSL([]string{"ctrl+shift+down"}, []string{"ctrl+shift+down", "ctrl+down"})},
		{"tui.altScreen.search", alt, "Search the rendered transcript", ScopeAltScreen,
			winWSL([]string{"ctrl+shift+f"}, []string{"ctrl+f"})},
		{"tui.altScreen.searchNext", alt, "Select the next search match while searching", ScopeAltScreen, keys("enter", "ctrl+g")},
		{"tui.altScreen.searchPrevious", alt, "Select the previous search match while searching", ScopeAltScreen, keys("shift+enter", "ctrl+shift+g")},
		{"tui.altScreen.searchClose", alt, "Close transcript search", ScopeAltScreen, keys("escape")},
		{"tui.altScreen.top", alt, "Scroll to the beginning of the transcript", ScopeAltScreen, keys("home")},
		{"tui.altScreen.bottom", alt, "Scroll to the transcript end and follow new output", ScopeAltScreen, keys("end")},

		{"app.interrupt", app, "Cancel / abort", ScopeApp, keys("escape")},
		{"app.clear", app, "Clear editor (first) / exit (second)", ScopeApp, keys("ctrl+c")},
		{"app.exit", app, "Exit (when editor empty)", ScopeApp, keys("ctrl+d")},
		{"app.suspend", app, "Suspend to background", ScopeApp, func(p Platform) []string {
			if p == Windows {
				return nil
			}
			return []string{"ctrl+z"}
		}},
		{"app.editor.external", app, "Open in external editor", ScopeApp, keys("ctrl+g")},
		{"app.clipboard.pasteImage", app, "Paste files on macOS, images, or text from clipboard", ScopeApp,
			winWSL([]string{"ctrl+v"}, []string{"alt+v"})},

		{"app.session.new", sess, "Start a new session (/new)", ScopeApp, none},
		{"app.session.tree", sess, "Open session tree navigator (/tree)", ScopeApp, none},
		{"app.session.fork", sess, "Fork current session (/fork)", ScopeApp, none},
		{"app.session.resume", sess, "Open session resume picker (/resume)", ScopeApp, none},
		{"app.session.togglePath", sess, "Toggle path display", ScopeSession, keys("ctrl+p")},
		{"app.session.toggleSort", sess, "Toggle sort mode", ScopeSession, keys("ctrl+s")},
		{"app.session.toggleNamedFilter", sess, "Toggle named-only filter", ScopeSession, keys("ctrl+n")},
		{"app.session.rename", sess, "Rename session", ScopeSession, keys("ctrl+r")},
		{"app.session.delete", sess, "Delete session", ScopeSession, keys("ctrl+d")},
		{"app.session.deleteNoninvasive", sess, "Delete session when query is empty", ScopeSession, keys("ctrl+backspace")},

		{"app.model.select", mod, "Open model selector", ScopeApp, keys("ctrl+l")},
		{"app.model.cycleForward", mod, "Cycle to next model", ScopeApp, keys("ctrl+p")},
		{"app.model.cycleBackward", mod, "Cycle to previous model", ScopeApp,
			winWSL([]string{"shift+ctrl+p"}, []string{"alt+p"})},
		{"app.models.save", mod, "Save the selected default model or scoped model configuration to settings", ScopeModels, keys("ctrl+s")},
		{"app.thinking.cycle", mod, "Cycle thinking level", ScopeApp, keys("shift+tab")},
		{"app.thinking.save", mod, "Save current thinking level to settings", ScopeModels, keys("ctrl+s")},
		{"app.thinking.toggle", mod, "Collapse or expand thinking blocks", ScopeApp, keys("ctrl+t")},

		{"app.tools.expand", disp, "Collapse or expand tool output", ScopeApp, keys("ctrl+o")},
		{"app.message.copy", disp, "Copy the selected message, the selection, or the last assistant message", ScopeApp, keys("ctrl+x")},
		{"app.message.followUp", disp, "Queue follow-up message", ScopeApp, winWSL([]string{"alt+enter"}, []string{"ctrl+q"})},
		{"app.message.dequeue", disp, "Restore queued messages to editor", ScopeApp, winWSL([]string{"alt+up"}, []string{"alt+q"})},

		{"app.tree.foldOrUp", tree, "Fold current branch segment, or jump to the previous segment start", ScopeTree, keys("ctrl+left", "alt+left")},
		{"app.tree.unfoldOrDown", tree, "Unfold current branch segment, or jump to the next segment start or branch end", ScopeTree, keys("ctrl+right", "alt+right")},
		{"app.tree.editLabel", tree, "Edit the label on the selected tree node", ScopeTree, keys("shift+l")},
		{"app.tree.toggleLabelTimestamp", tree, "Toggle label timestamps in the tree", ScopeTree, keys("shift+t")},
		{"app.tree.filter.default", tree, "Set tree filter to default view", ScopeTree, keys("ctrl+d")},
		{"app.tree.filter.noTools", tree, "Toggle tree filter that hides tool results", ScopeTree, keys("ctrl+t")},
		{"app.tree.filter.userOnly", tree, "Toggle tree filter that shows only user messages", ScopeTree, keys("ctrl+u")},
		{"app.tree.filter.labeledOnly", tree, "Toggle tree filter that shows only labeled entries", ScopeTree, keys("ctrl+l")},
		{"app.tree.filter.all", tree, "Toggle tree filter that shows all entries", ScopeTree, keys("ctrl+a")},
		{"app.tree.filter.cycleForward", tree, "Cycle tree filter forward", ScopeTree, keys("ctrl+o")},
		{"app.tree.filter.cycleBackward", tree, "Cycle tree filter backward", ScopeTree, keys("shift+ctrl+o")},

		{"app.models.enableAll", scop, "Enable all models (or all matching the current search)", ScopeModels, keys("ctrl+a")},
		{"app.models.clearAll", scop, "Clear all models (or all matching the current search)", ScopeModels, keys("ctrl+x")},
		{"app.models.toggleProvider", scop, "Toggle all models for the current provider", ScopeModels, keys("ctrl+p")},
		{"app.models.reorderUp", scop, "Move the selected model up in the cycle order", ScopeModels, keys("alt+up")},
		{"app.models.reorderDown", scop, "Move the selected model down in the cycle order", ScopeModels, keys("alt+down")},
	}
}

// activeTogether reports whether two scopes can receive the same key press,
// so that one key bound in both is a conflict.
func activeTogether(a, b Scope) bool {
	if a == b {
		return true
	}
	main := map[Scope]bool{ScopeEditor: true, ScopeApp: true, ScopeAltScreen: true}
	if main[a] && main[b] {
		return true
	}
	// Pickers are a select list with their own actions.
	picker := map[Scope]bool{ScopeSession: true, ScopeModels: true, ScopeTree: true}
	return (a == ScopeSelect && picker[b]) || (b == ScopeSelect && picker[a])
}
