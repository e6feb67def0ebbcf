// One ID per row of actionTable (actions.go); TestIDsMatchTheTable keeps
// the two in step.

package keymap

// ID names one action. Its value is opaque outside this package, so an
// action a caller misspells does not compile: callers use the variables
// below, one per row of keybindings.md.
type ID struct{ s string }

// String is the action id as keybindings.json spells it.
func (i ID) String() string { return i.s }

// The actions of keybindings.md.
var (
	EditorCursorUp              = ID{"tui.editor.cursorUp"}
	EditorCursorDown            = ID{"tui.editor.cursorDown"}
	EditorHistoryPrevious       = ID{"tui.editor.historyPrevious"}
	EditorHistoryNext           = ID{"tui.editor.historyNext"}
	EditorCursorLeft            = ID{"tui.editor.cursorLeft"}
	EditorCursorRight           = ID{"tui.editor.cursorRight"}
	EditorCursorWordLeft        = ID{"tui.editor.cursorWordLeft"}
	EditorCursorWordRight       = ID{"tui.editor.cursorWordRight"}
	EditorCursorLineStart       = ID{"tui.editor.cursorLineStart"}
	EditorCursorLineEnd         = ID{"tui.editor.cursorLineEnd"}
	EditorJumpForward           = ID{"tui.editor.jumpForward"}
	EditorJumpBackward          = ID{"tui.editor.jumpBackward"}
	EditorPageUp                = ID{"tui.editor.pageUp"}
	EditorPageDown              = ID{"tui.editor.pageDown"}
	EditorDeleteCharBackward    = ID{"tui.editor.deleteCharBackward"}
	EditorDeleteCharForward     = ID{"tui.editor.deleteCharForward"}
	EditorDeleteWordBackward    = ID{"tui.editor.deleteWordBackward"}
	EditorDeleteWordForward     = ID{"tui.editor.deleteWordForward"}
	EditorDeleteToLineStart     = ID{"tui.editor.deleteToLineStart"}
	EditorDeleteToLineEnd       = ID{"tui.editor.deleteToLineEnd"}
	EditorYank                  = ID{"tui.editor.yank"}
	EditorYankPop               = ID{"tui.editor.yankPop"}
	EditorUndo                  = ID{"tui.editor.undo"}
	InputNewLine                = ID{"tui.input.newLine"}
	InputSubmit                 = ID{"tui.input.submit"}
	InputTab                    = ID{"tui.input.tab"}
	InputCopy                   = ID{"tui.input.copy"}
	SelectUp                    = ID{"tui.select.up"}
	SelectDown                  = ID{"tui.select.down"}
	SelectPageUp                = ID{"tui.select.pageUp"}
	SelectPageDown              = ID{"tui.select.pageDown"}
	SelectConfirm               = ID{"tui.select.confirm"}
	SelectCancel                = ID{"tui.select.cancel"}
	AltScreenPageUp             = ID{"tui.altScreen.pageUp"}
	AltScreenPageDown           = ID{"tui.altScreen.pageDown"}
	AltScreenHalfPageUp         = ID{"tui.altScreen.halfPageUp"}
	AltScreenHalfPageDown       = ID{"tui.altScreen.halfPageDown"}
	AltScreenLineUp             = ID{"tui.altScreen.lineUp"}
	AltScreenLineDown           = ID{"tui.altScreen.lineDown"}
	AltScreenPreviousPrompt     = ID{"tui.altScreen.previousPrompt"}
	AltScreenNextPrompt         = ID{"tui.altScreen.nextPrompt"}
	AltScreenSearch             = ID{"tui.altScreen.search"}
	AltScreenSearchNext         = ID{"tui.altScreen.searchNext"}
	AltScreenSearchPrevious     = ID{"tui.altScreen.searchPrevious"}
	AltScreenSearchClose        = ID{"tui.altScreen.searchClose"}
	AltScreenTop                = ID{"tui.altScreen.top"}
	AltScreenBottom             = ID{"tui.altScreen.bottom"}
	AppInterrupt                = ID{"app.interrupt"}
	AppClear                    = ID{"app.clear"}
	AppExit                     = ID{"app.exit"}
	AppSuspend                  = ID{"app.suspend"}
	AppEditorExternal           = ID{"app.editor.external"}
	AppClipboardPasteImage      = ID{"app.clipboard.pasteImage"}
	AppSessionNew               = ID{"app.session.new"}
	AppSessionTree              = ID{"app.session.tree"}
	AppSessionFork              = ID{"app.session.fork"}
	AppSessionResume            = ID{"app.session.resume"}
	AppSessionTogglePath        = ID{"app.session.togglePath"}
	AppSessionToggleSort        = ID{"app.session.toggleSort"}
	AppSessionToggleNamedFilter = ID{"app.session.toggleNamedFilter"}
	AppSessionRename            = ID{"app.session.rename"}
	AppSessionDelete            = ID{"app.session.delete"}
	AppSessionDeleteNoninvasive = ID{"app.session.deleteNoninvasive"}
	AppModelSelect              = ID{"app.model.select"}
	AppModelCycleForward        = ID{"app.model.cycleForward"}
	AppModelCycleBackward       = ID{"app.model.cycleBackward"}
	AppModelsSave               = ID{"app.models.save"}
	AppThinkingCycle            = ID{"app.thinking.cycle"}
	AppThinkingSave             = ID{"app.thinking.save"}
	AppThinkingToggle           = ID{"app.thinking.toggle"}
	AppToolsExpand              = ID{"app.tools.expand"}
	AppMessageCopy              = ID{"app.message.copy"}
	AppMessageFollowUp          = ID{"app.message.followUp"}
	AppMessageDequeue           = ID{"app.message.dequeue"}
	AppTreeFoldOrUp             = ID{"app.tree.foldOrUp"}
	AppTreeUnfoldOrDown         = ID{"app.tree.unfoldOrDown"}
	AppTreeEditLabel            = ID{"app.tree.editLabel"}
	AppTreeToggleLabelTimestamp = ID{"app.tree.toggleLabelTimestamp"}
	AppTreeFilterDefault        = ID{"app.tree.filter.default"}
	AppTreeFilterNoTools        = ID{"app.tree.filter.noTools"}
	AppTreeFilterUserOnly       = ID{"app.tree.filter.userOnly"}
	AppTreeFilterLabeledOnly    = ID{"app.tree.filter.labeledOnly"}
	AppTreeFilterAll            = ID{"app.tree.filter.all"}
	AppTreeFilterCycleForward   = ID{"app.tree.filter.cycleForward"}
	AppTreeFilterCycleBackward  = ID{"app.tree.filter.cycleBackward"}
	AppModelsEnableAll          = ID{"app.models.enableAll"}
	AppModelsClearAll           = ID{"app.models.clearAll"}
	AppModelsToggleProvider     = ID{"app.models.toggleProvider"}
	AppModelsReorderUp          = ID{"app.models.reorderUp"}
	AppModelsReorderDown        = ID{"app.models.reorderDown"}
)
