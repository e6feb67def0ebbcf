// Editor and CustomEditor: the prompt editor an extension extends and
// passes to ctx.ui.setEditorComponent (vim modes, custom borders). relay
// draws the lines render(width) returns and sends every key here; keys
// the editor does not edit with go back to relay's own keybindings
// (escape aborts, ctrl+c clears, ctrl+d exits, model cycling, ...).

import { CURSOR_MARKER, sliceByColumn, visibleWidth } from "./index.mjs";

const host = () => globalThis.__relayHost ?? {};

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

// Keys the editor handles itself; anything else that is not text goes to
// relay's keybindings.
const EDIT_KEYS = new Set([
	"\r", "\n", "\x1b[13;2u", "\x1b\r", "\x1b[13;3u", // enter, newline
	"\x7f", "\b", "\x1b[3~", // backspace, delete
	"\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1bOA", "\x1bOB", "\x1bOC", "\x1bOD",
	"\x1b[H", "\x1b[F", "\x1bOH", "\x1bOF", "\x1b[1~", "\x1b[4~",
	"\x01", "\x05", "\x0b", "\x15", "\x17", // ctrl+a e k u w
]);

function isText(data) {
	if (data.startsWith(PASTE_START)) return true;
	for (const ch of data) {
		const c = ch.codePointAt(0);
		if (c < 0x20 || c === 0x7f) return false;
	}
	return data.length > 0 && !data.startsWith("\x1b");
}

export class Editor {
	constructor(tui, theme, options = {}) {
		this.tui = tui;
		this.theme = theme;
		this.options = options ?? {};
		this.lines = [""];
		this.row = 0;
		this.col = 0; // in UTF-16 units of lines[row]
		this.focused = false;
		this.history = [];
		this.historyIndex = -1;
		this.borderColor = (s) => s;
		this.onSubmit = undefined;
		this.onChange = undefined;
		this.disableSubmit = false;
	}

	getText() {
		return this.lines.join("\n");
	}
	getExpandedText() {
		return this.getText();
	}
	getLines() {
		return [...this.lines];
	}
	getCursor() {
		return { line: this.row, col: this.col };
	}
	setText(text) {
		this.lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
		this.row = this.lines.length - 1;
		this.col = this.lines[this.row].length;
		this.historyIndex = -1;
		this.changed();
	}
	insertTextAtCursor(text) {
		const parts = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
		const line = this.lines[this.row];
		const before = line.slice(0, this.col);
		const after = line.slice(this.col);
		if (parts.length === 1) {
			this.lines[this.row] = before + parts[0] + after;
			this.col += parts[0].length;
		} else {
			const last = parts[parts.length - 1];
			this.lines.splice(this.row, 1, before + parts[0], ...parts.slice(1, -1), last + after);
			this.row += parts.length - 1;
			this.col = last.length;
		}
		this.changed();
	}
	addToHistory(text) {
		if (String(text).trim()) this.history.unshift(String(text));
		if (this.history.length > 100) this.history.length = 100;
	}
	isShowingAutocomplete() {
		return false;
	}
	invalidate() {}

	changed() {
		this.onChange?.(this.getText());
		host().editorChanged?.(this);
		this.tui?.requestRender?.();
	}

	submit() {
		const text = this.getText();
		if (this.disableSubmit) return;
		if (!text.trim()) return;
		this.addToHistory(text);
		this.lines = [""];
		this.row = this.col = 0;
		this.historyIndex = -1;
		this.changed();
		if (this.onSubmit) this.onSubmit(text);
		else host().editorSubmit?.(this, text);
	}

	newline() {
		this.insertTextAtCursor("\n");
	}

	backspace() {
		if (this.col > 0) {
			const line = this.lines[this.row];
			const cut = charBefore(line, this.col);
			this.lines[this.row] = line.slice(0, this.col - cut) + line.slice(this.col);
			this.col -= cut;
		} else if (this.row > 0) {
			const prev = this.lines[this.row - 1];
			this.lines.splice(this.row - 1, 2, prev + this.lines[this.row]);
			this.row--;
			this.col = prev.length;
		} else return;
		this.changed();
	}

	del() {
		const line = this.lines[this.row];
		if (this.col < line.length) {
			this.lines[this.row] = line.slice(0, this.col) + line.slice(this.col + charAt(line, this.col));
		} else if (this.row < this.lines.length - 1) {
			this.lines.splice(this.row, 2, line + this.lines[this.row + 1]);
		} else return;
		this.changed();
	}

	move(dRow, dCol) {
		if (dCol < 0) {
			if (this.col > 0) this.col -= charBefore(this.lines[this.row], this.col);
			else if (this.row > 0) {
				this.row--;
				this.col = this.lines[this.row].length;
			}
		} else if (dCol > 0) {
			if (this.col < this.lines[this.row].length) this.col += charAt(this.lines[this.row], this.col);
			else if (this.row < this.lines.length - 1) {
				this.row++;
				this.col = 0;
			}
		}
		if (dRow !== 0) {
			const next = this.row + dRow;
			if (next < 0 || next >= this.lines.length) {
				this.recall(dRow);
				return;
			}
			this.row = next;
			this.col = Math.min(this.col, this.lines[this.row].length);
		}
		this.tui?.requestRender?.();
	}

	// recall walks the history from the first or last line.
	recall(d) {
		const i = this.historyIndex - d;
		if (i < -1 || i >= this.history.length) return;
		this.historyIndex = i;
		const text = i === -1 ? "" : this.history[i];
		this.lines = text.split("\n");
		this.row = d < 0 ? 0 : this.lines.length - 1;
		this.col = this.lines[this.row].length;
		this.onChange?.(this.getText());
		host().editorChanged?.(this);
		this.tui?.requestRender?.();
	}

	handleInput(data) {
		data = String(data ?? "");
		if (data.startsWith(PASTE_START)) {
			this.insertTextAtCursor(data.slice(PASTE_START.length).replace(PASTE_END, ""));
			return;
		}
		switch (data) {
			case "\r":
				return this.submit();
			case "\n":
			case "\x1b[13;2u":
			case "\x1b\r":
			case "\x1b[13;3u":
				return this.newline();
			case "\x7f":
			case "\b":
				return this.backspace();
			case "\x1b[3~":
				return this.del();
			case "\x1b[A":
			case "\x1bOA":
				return this.move(-1, 0);
			case "\x1b[B":
			case "\x1bOB":
				return this.move(1, 0);
			case "\x1b[C":
			case "\x1bOC":
				return this.move(0, 1);
			case "\x1b[D":
			case "\x1bOD":
				return this.move(0, -1);
			case "\x1b[H":
			case "\x1bOH":
			case "\x1b[1~":
			case "\x01":
				this.col = 0;
				return this.tui?.requestRender?.();
			case "\x1b[F":
			case "\x1bOF":
			case "\x1b[4~":
			case "\x05":
				this.col = this.lines[this.row].length;
				return this.tui?.requestRender?.();
			case "\x0b":
				this.lines[this.row] = this.lines[this.row].slice(0, this.col);
				return this.changed();
			case "\x15":
				this.lines[this.row] = this.lines[this.row].slice(this.col);
				this.col = 0;
				return this.changed();
			case "\x17": {
				const line = this.lines[this.row];
				const start = line.slice(0, this.col).replace(/\S+\s*$|\s+$/, "").length;
				this.lines[this.row] = line.slice(0, start) + line.slice(this.col);
				this.col = start;
				return this.changed();
			}
		}
		if (isText(data)) this.insertTextAtCursor(data);
	}

	render(width) {
		width = Math.max(1, width);
		const border = this.borderColor("─".repeat(width));
		const out = [border];
		for (let r = 0; r < this.lines.length; r++) {
			let line = this.lines[r];
			if (this.focused && r === this.row) line = line.slice(0, this.col) + CURSOR_MARKER + line.slice(this.col);
			out.push(...wrap(line, width));
		}
		out.push(border);
		return out;
	}
}

// wrap cuts a line into rows of width columns (the cursor marker takes
// none).
function wrap(line, width) {
	const marker = line.indexOf(CURSOR_MARKER);
	const plain = marker >= 0 ? line.replace(CURSOR_MARKER, "") : line;
	if (visibleWidth(plain) <= width) return [line];
	const rows = [];
	let rest = plain;
	let before = marker >= 0 ? visibleWidth(plain.slice(0, marker)) : -1;
	while (visibleWidth(rest) > width) {
		let row = sliceByColumn(rest, 0, width);
		if (before >= 0 && before < width) {
			row = sliceByColumn(row, 0, before) + CURSOR_MARKER + sliceByColumn(row, before, width);
			before = -1;
		} else if (before >= 0) before -= width;
		rows.push(row);
		rest = sliceByColumn(rest, width, Infinity);
	}
	if (before >= 0) rest = sliceByColumn(rest, 0, before) + CURSOR_MARKER + sliceByColumn(rest, before, Infinity);
	rows.push(rest);
	return rows;
}

function charBefore(s, i) {
	const c = s.charCodeAt(i - 1);
	return c >= 0xdc00 && c <= 0xdfff && i > 1 ? 2 : 1;
}
function charAt(s, i) {
	const c = s.charCodeAt(i);
	return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

// CustomEditor is the editor extensions extend: keys it does not edit
// with run relay's keybindings, as in the original.
export class CustomEditor extends Editor {
	constructor(tui, theme, keybindings, options) {
		super(tui, theme, options);
		this.keybindings = keybindings;
		this.actionHandlers = new Map();
		this.onEscape = undefined;
		this.onCtrlD = undefined;
		this.onExtensionShortcut = undefined;
	}
	onAction(action, handler) {
		this.actionHandlers.set(action, handler);
	}
	handleInput(data) {
		data = String(data ?? "");
		if (this.onExtensionShortcut?.(data)) return;
		if (data === "\x1b" && this.onEscape) return this.onEscape();
		if (data === "\x04" && this.onCtrlD && this.getText() === "") return this.onCtrlD();
		for (const [action, handler] of this.actionHandlers) {
			if (this.keybindings?.matches?.(data, action)) return handler();
		}
		if (EDIT_KEYS.has(data) || isText(data)) return super.handleInput(data);
		// relay's own keybinding; a key it has none for is the editor's.
		const appKey = host().editorAppKey;
		if (!appKey) return super.handleInput(data);
		appKey(this, data).then((handled) => {
			if (!handled) Editor.prototype.handleInput.call(this, data);
		});
	}
}
