// The richer components of @relay-harness/tui (upstream-spec-extras §11):
// Input, Markdown, SelectList, SettingsList, Loader, CancellableLoader,
// Image, HStack, ScrollView, MouseRegion, and fuzzy filtering (Editor and
// CustomEditor are editor.mjs's). Each renders to lines no wider than the
// width it is given; relay's TUI draws them.

import { getKeybindings, matchesKey, parseKey } from "./keys.mjs";
import { Container, CURSOR_MARKER, Text, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "./tui-basic.mjs";

const id = (s) => s;
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

// ---- fuzzy ----

// fuzzyMatch: every query character appears in text in order; a lower
// score is a better match (consecutive runs and word starts score lower).
export function fuzzyMatch(query, text) {
	const q = String(query ?? "").toLowerCase();
	const t = String(text ?? "").toLowerCase();
	if (q === "") return { matches: true, score: 0 };
	let score = 0;
	let ti = 0;
	let last = -1;
	for (const ch of q) {
		const at = t.indexOf(ch, ti);
		if (at < 0) return { matches: false, score: Infinity };
		const gap = last < 0 ? at : at - last - 1;
		score += gap;
		if (at > 0 && /[\s\-_/.:]/.test(t[at - 1])) score -= 0.5;
		last = at;
		ti = at + 1;
	}
	if (t.startsWith(q)) score -= q.length;
	return { matches: true, score };
}

// fuzzyFilter keeps the items whose text matches every space-separated
// token of query, best first.
export function fuzzyFilter(items, query, getText = String) {
	const tokens = String(query ?? "").trim().split(/\s+/).filter(Boolean);
	if (tokens.length === 0) return [...items];
	const scored = [];
	items.forEach((item, i) => {
		const text = getText(item);
		let total = 0;
		for (const tok of tokens) {
			const m = fuzzyMatch(tok, text);
			if (!m.matches) return;
			total += m.score;
		}
		scored.push({ item, total, i });
	});
	scored.sort((a, b) => a.total - b.total || a.i - b.i);
	return scored.map((s) => s.item);
}

// ---- text editing helpers ----

function isPrintable(data) {
	if (data.startsWith("\x1b")) return false;
	for (const ch of data) {
		const c = ch.codePointAt(0);
		if (c < 32 || c === 127) return false;
	}
	return data.length > 0;
}

function wordLeft(s, i) {
	while (i > 0 && /\s/.test(s[i - 1])) i--;
	while (i > 0 && !/\s/.test(s[i - 1])) i--;
	return i;
}
function wordRight(s, i) {
	while (i < s.length && /\s/.test(s[i])) i++;
	while (i < s.length && !/\s/.test(s[i])) i++;
	return i;
}

// cursorCell draws the character under the cursor in reverse video,
// preceded by CURSOR_MARKER when focused (IME placement).
function cursorCell(ch, focused) {
	return `${focused ? CURSOR_MARKER : ""}\x1b[7m${ch || " "}\x1b[27m`;
}

// ---- Input: one line ----

export class Input {
	constructor() {
		this.value = "";
		this.cursor = 0;
		this.focused = false;
		this.onSubmit = undefined;
		this.onEscape = undefined;
		this.paste = undefined;
	}
	getValue() {
		return this.value;
	}
	setValue(v) {
		this.value = String(v ?? "");
		this.cursor = Math.min(this.cursor, this.value.length);
	}
	insert(text) {
		text = text.replace(/[\r\n]+/g, " ");
		this.value = this.value.slice(0, this.cursor) + text + this.value.slice(this.cursor);
		this.cursor += text.length;
	}
	handleInput(data) {
		if (this.paste !== undefined || data.startsWith(PASTE_START)) {
			this.paste = (this.paste ?? "") + data.replace(PASTE_START, "");
			const end = this.paste.indexOf(PASTE_END);
			if (end < 0) return;
			const text = this.paste.slice(0, end);
			this.paste = undefined;
			this.insert(text);
			return;
		}
		const kb = getKeybindings();
		if (kb.matches(data, "tui.input.submit")) return this.onSubmit?.(this.value);
		if (matchesKey(data, "escape")) return this.onEscape?.();
		if (kb.matches(data, "tui.editor.deleteCharBackward")) {
			if (this.cursor > 0) {
				this.value = this.value.slice(0, this.cursor - 1) + this.value.slice(this.cursor);
				this.cursor--;
			}
		} else if (kb.matches(data, "tui.editor.deleteCharForward")) {
			this.value = this.value.slice(0, this.cursor) + this.value.slice(this.cursor + 1);
		} else if (kb.matches(data, "tui.editor.deleteWordBackward")) {
			const to = wordLeft(this.value, this.cursor);
			this.value = this.value.slice(0, to) + this.value.slice(this.cursor);
			this.cursor = to;
		} else if (kb.matches(data, "tui.editor.deleteToLineStart")) {
			this.value = this.value.slice(this.cursor);
			this.cursor = 0;
		} else if (kb.matches(data, "tui.editor.deleteToLineEnd")) {
			this.value = this.value.slice(0, this.cursor);
		} else if (kb.matches(data, "tui.editor.cursorWordLeft")) this.cursor = wordLeft(this.value, this.cursor);
		else if (kb.matches(data, "tui.editor.cursorWordRight")) this.cursor = wordRight(this.value, this.cursor);
		else if (kb.matches(data, "tui.editor.cursorLeft")) this.cursor = Math.max(0, this.cursor - 1);
		else if (kb.matches(data, "tui.editor.cursorRight")) this.cursor = Math.min(this.value.length, this.cursor + 1);
		else if (kb.matches(data, "tui.editor.cursorLineStart")) this.cursor = 0;
		else if (kb.matches(data, "tui.editor.cursorLineEnd")) this.cursor = this.value.length;
		else if (isPrintable(data)) this.insert(data);
	}
	invalidate() {}
	render(width) {
		const prompt = "> ";
		const avail = Math.max(1, width - prompt.length);
		// Scroll so the cursor stays visible.
		let start = 0;
		while (visibleWidth(this.value.slice(start, this.cursor)) >= avail) start++;
		const shown = this.value.slice(start);
		const at = this.cursor - start;
		const head = shown.slice(0, at);
		const ch = shown[at] ?? "";
		const tail = truncateToWidth(shown.slice(at + (ch ? 1 : 0)), Math.max(0, avail - visibleWidth(head) - 1), "");
		return [truncateToWidth(prompt + head + cursorCell(ch, this.focused) + tail, width, "")];
	}
}

// ---- SelectList ----

export class SelectList {
	constructor(items, maxVisible = 10, theme = {}, layout = {}) {
		this.items = [...(items ?? [])];
		this.filtered = this.items;
		this.selectedIndex = 0;
		this.maxVisible = Math.max(1, maxVisible | 0);
		this.theme = { selectedPrefix: id, selectedText: id, description: id, scrollInfo: id, noMatch: id, ...theme };
		this.layout = layout ?? {};
		this.onSelect = undefined;
		this.onCancel = undefined;
		this.onSelectionChange = undefined;
	}
	setFilter(filter) {
		const f = String(filter ?? "").toLowerCase();
		this.filtered = this.items.filter((i) => (i.value ?? "").toLowerCase().startsWith(f) || (i.label ?? "").toLowerCase().startsWith(f));
		this.selectedIndex = 0;
	}
	setSelectedIndex(i) {
		this.selectedIndex = Math.max(0, Math.min(i, this.filtered.length - 1));
	}
	getSelectedItem() {
		return this.filtered[this.selectedIndex] ?? null;
	}
	invalidate() {}
	render(width) {
		if (this.filtered.length === 0) return [truncateToWidth(this.theme.noMatch("  No matching commands"), width, "")];
		const n = this.filtered.length;
		const start = Math.max(0, Math.min(this.selectedIndex - Math.floor(this.maxVisible / 2), n - this.maxVisible));
		const end = Math.min(start + this.maxVisible, n);
		const label = (it) => it.label || it.value || "";
		const minCol = this.layout.minPrimaryColumnWidth ?? this.layout.maxPrimaryColumnWidth ?? 32;
		const maxCol = this.layout.maxPrimaryColumnWidth ?? this.layout.minPrimaryColumnWidth ?? 32;
		const widest = this.filtered.reduce((w, it) => Math.max(w, visibleWidth(label(it)) + 2), 0);
		const colW = Math.max(Math.min(minCol, maxCol), Math.min(widest, Math.max(minCol, maxCol)));
		const lines = [];
		for (let i = start; i < end; i++) {
			const it = this.filtered[i];
			const sel = i === this.selectedIndex;
			const prefix = sel ? "→ " : "  ";
			const desc = it.description ? String(it.description).replace(/\s*\n\s*/g, " ") : "";
			let line;
			if (desc && width > 40) {
				const cw = Math.max(1, Math.min(colW, width - 6));
				const primary = this.truncate(label(it), Math.max(1, cw - 2), cw, it, sel);
				const gap = " ".repeat(Math.max(1, cw - visibleWidth(primary)));
				const room = width - 2 - visibleWidth(primary) - gap.length - 2;
				if (room > 10) {
					const d = truncateToWidth(desc, room, "");
					line = sel ? this.theme.selectedText(prefix + primary + gap + d) : prefix + primary + this.theme.description(gap + d);
				}
			}
			if (line === undefined) {
				const primary = this.truncate(label(it), Math.max(1, width - 4), width - 4, it, sel);
				line = sel ? this.theme.selectedText(prefix + primary) : prefix + primary;
			}
			lines.push(truncateToWidth(line, width, ""));
		}
		if (start > 0 || end < n) lines.push(this.theme.scrollInfo(truncateToWidth(`  (${this.selectedIndex + 1}/${n})`, Math.max(0, width - 2), "")));
		return lines;
	}
	truncate(text, maxWidth, columnWidth, item, isSelected) {
		if (typeof this.layout.truncatePrimary === "function")
			return truncateToWidth(this.layout.truncatePrimary({ text, maxWidth, columnWidth, item, isSelected }), maxWidth, "");
		return truncateToWidth(text, maxWidth, "");
	}
	handleInput(data) {
		const kb = getKeybindings();
		const n = this.filtered.length;
		if (kb.matches(data, "tui.select.up")) {
			if (n) this.selectedIndex = this.selectedIndex === 0 ? n - 1 : this.selectedIndex - 1;
			this.onSelectionChange?.(this.getSelectedItem());
		} else if (kb.matches(data, "tui.select.down")) {
			if (n) this.selectedIndex = this.selectedIndex === n - 1 ? 0 : this.selectedIndex + 1;
			this.onSelectionChange?.(this.getSelectedItem());
		} else if (kb.matches(data, "tui.select.pageUp")) {
			this.selectedIndex = Math.max(0, this.selectedIndex - this.maxVisible);
			this.onSelectionChange?.(this.getSelectedItem());
		} else if (kb.matches(data, "tui.select.pageDown")) {
			this.selectedIndex = Math.max(0, Math.min(n - 1, this.selectedIndex + this.maxVisible));
			this.onSelectionChange?.(this.getSelectedItem());
		} else if (kb.matches(data, "tui.select.confirm")) {
			const it = this.getSelectedItem();
			if (it) this.onSelect?.(it);
		} else if (kb.matches(data, "tui.select.cancel")) this.onCancel?.();
	}
}

// ---- SettingsList ----

export class SettingsList {
	constructor(items, maxVisible, theme, onChange, onCancel, options = {}) {
		this.items = items ?? [];
		this.filtered = this.items;
		this.maxVisible = Math.max(1, maxVisible | 0);
		this.theme = { label: (t) => t, value: (t) => t, description: id, cursor: "→ ", hint: id, ...theme };
		this.onChange = onChange ?? (() => {});
		this.onCancel = onCancel ?? (() => {});
		this.selectedIndex = 0;
		this.searchEnabled = !!options?.enableSearch;
		this.search = this.searchEnabled ? new Input() : undefined;
		this.submenu = undefined;
	}
	updateValue(itemId, value) {
		const it = this.items.find((i) => i.id === itemId);
		if (it) it.currentValue = value;
	}
	invalidate() {
		this.submenu?.invalidate?.();
	}
	render(width) {
		if (this.submenu) return this.submenu.render(width);
		const lines = [];
		if (this.search) lines.push(...this.search.render(width), "");
		if (this.items.length === 0) return [...lines, truncateToWidth(this.theme.hint("  No settings available"), width, "")];
		if (this.filtered.length === 0) lines.push(truncateToWidth(this.theme.hint("  No matching settings"), width, ""));
		const n = this.filtered.length;
		const start = Math.max(0, Math.min(this.selectedIndex - Math.floor(this.maxVisible / 2), n - this.maxVisible));
		const end = Math.min(start + this.maxVisible, n);
		const labelW = Math.min(30, Math.max(0, ...this.filtered.map((i) => visibleWidth(i.label))));
		for (let i = start; i < end; i++) {
			const it = this.filtered[i];
			const sel = i === this.selectedIndex;
			const prefix = sel ? this.theme.cursor : "  ";
			const label = truncateToWidth(it.label, labelW, "");
			const padded = label + " ".repeat(Math.max(0, labelW - visibleWidth(label)));
			const room = Math.max(0, width - visibleWidth(prefix) - labelW - 2);
			const value = truncateToWidth(String(it.currentValue ?? ""), room, "");
			lines.push(truncateToWidth(prefix + this.theme.label(padded, sel) + "  " + this.theme.value(value, sel), width, ""));
		}
		if (start > 0 || end < n) lines.push(this.theme.hint(truncateToWidth(`  (${this.selectedIndex + 1}/${n})`, Math.max(0, width - 2), "")));
		const cur = this.filtered[this.selectedIndex];
		if (cur?.description) {
			lines.push("");
			for (const l of wrapTextWithAnsi(cur.description, Math.max(1, width - 4))) lines.push(truncateToWidth(this.theme.description(`  ${l}`), width, ""));
		}
		lines.push("");
		lines.push(
			truncateToWidth(
				this.theme.hint(this.searchEnabled ? "  Type to search · Enter/Space to change · Esc to cancel" : "  Enter/Space to change · Esc to cancel"),
				width,
				"",
			),
		);
		return lines;
	}
	handleInput(data) {
		if (this.submenu) return this.submenu.handleInput?.(data);
		const kb = getKeybindings();
		const n = this.filtered.length;
		if (kb.matches(data, "tui.select.up")) {
			if (n) this.selectedIndex = this.selectedIndex === 0 ? n - 1 : this.selectedIndex - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (n) this.selectedIndex = this.selectedIndex === n - 1 ? 0 : this.selectedIndex + 1;
		} else if (kb.matches(data, "tui.select.confirm") || data === " ") {
			this.activate(this.filtered[this.selectedIndex]);
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.onCancel();
		} else if (this.search) {
			this.search.handleInput(data);
			const q = this.search.getValue();
			this.filtered = q ? fuzzyFilter(this.items, q, (i) => i.label) : this.items;
			this.selectedIndex = 0;
		}
	}
	activate(it) {
		if (!it) return;
		if (typeof it.submenu === "function") {
			this.submenu = it.submenu(it.currentValue, (value) => {
				this.submenu = undefined;
				if (value !== undefined) {
					it.currentValue = value;
					this.onChange(it.id, value);
				}
			});
			return;
		}
		const values = it.values ?? [];
		if (values.length === 0) return;
		const next = values[(values.indexOf(it.currentValue) + 1) % values.length];
		it.currentValue = next;
		this.onChange(it.id, next);
	}
}

// ---- Markdown ----

const md = {
	heading: id, link: id, linkUrl: id, code: id, codeBlock: id, codeBlockBorder: id, quote: id, quoteBorder: id, hr: id,
	listBullet: id, bold: (t) => `\x1b[1m${t}\x1b[22m`, italic: (t) => `\x1b[3m${t}\x1b[23m`,
	strikethrough: (t) => `\x1b[9m${t}\x1b[29m`, underline: (t) => `\x1b[4m${t}\x1b[24m`,
};

// inline renders emphasis, code spans and links of one line.
function inline(text, th) {
	const codes = [];
	text = text.replace(/`([^`]+)`/g, (_m, c) => {
		codes.push(th.code(c));
		return `\u0000${codes.length - 1}\u0000`;
	});
	text = text
		.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, t, u) => (t === u ? th.link(t) : `${th.link(t)} ${th.linkUrl(`(${u})`)}`))
		.replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_m, a, b) => th.bold(a ?? b))
		.replace(/(^|[^*\w])\*([^*\s][^*]*)\*|(^|\W)_([^_\s][^_]*)_/g, (_m, p1, a, p3, b) => (p1 ?? p3 ?? "") + th.italic(a ?? b))
		.replace(/~~([^~]+)~~/g, (_m, a) => th.strikethrough(a));
	return text.replace(/\u0000(\d+)\u0000/g, (_m, i) => codes[Number(i)]);
}

export class Markdown {
	constructor(text = "", paddingX = 1, paddingY = 1, theme, defaultTextStyle) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.theme = { ...md, ...(theme ?? {}) };
		this.defaultTextStyle = defaultTextStyle;
	}
	setText(t) {
		this.text = t;
	}
	invalidate() {}
	style(s) {
		const d = this.defaultTextStyle;
		if (!d) return s;
		if (d.bold) s = this.theme.bold(s);
		if (d.italic) s = this.theme.italic(s);
		if (d.underline) s = this.theme.underline(s);
		if (d.strikethrough) s = this.theme.strikethrough(s);
		if (d.color) s = d.color(s);
		if (d.bgColor) s = d.bgColor(s);
		return s;
	}
	render(width) {
		const th = this.theme;
		const inner = Math.max(1, width - 2 * this.paddingX);
		const pad = " ".repeat(this.paddingX);
		const out = [];
		const push = (l) => out.push(truncateToWidth(pad + l, width, ""));
		const wrap = (s, w = inner) => wrapTextWithAnsi(s, Math.max(1, w));
		const src = String(this.text ?? "").replace(/\r\n?/g, "\n").split("\n");
		let para = [];
		const flushPara = () => {
			if (para.length) for (const l of wrap(this.style(inline(para.join(" "), th)))) push(l);
			para = [];
		};
		for (let i = 0; i < src.length; i++) {
			const line = src[i];
			const fence = /^\s*(```|~~~)\s*(\S*)/.exec(line);
			if (fence) {
				flushPara();
				const body = [];
				for (i++; i < src.length && !src[i].trim().startsWith(fence[1]); i++) body.push(src[i]);
				const indent = th.codeBlockIndent ?? "  ";
				push(th.codeBlockBorder("```" + fence[2]));
				const code = typeof th.highlightCode === "function" ? th.highlightCode(body.join("\n"), fence[2] || undefined) : body.map((l) => th.codeBlock(l));
				for (const l of code) push(truncateToWidth(indent + l, inner, ""));
				push(th.codeBlockBorder("```"));
				continue;
			}
			if (line.trim() === "") {
				flushPara();
				if (out.length && out[out.length - 1].trim() !== "") out.push("");
				continue;
			}
			const h = /^(#{1,6})\s+(.*)$/.exec(line);
			if (h) {
				flushPara();
				const text = h[1].length <= 2 ? th.bold(inline(h[2], th)) : inline(h[2], th);
				for (const l of wrap(th.heading(h[1].length > 2 ? `${h[1]} ${text}` : text))) push(l);
				continue;
			}
			if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
				flushPara();
				push(th.hr("─".repeat(Math.min(inner, 80))));
				continue;
			}
			const q = /^\s*>\s?(.*)$/.exec(line);
			if (q) {
				flushPara();
				for (const l of wrap(th.quote(inline(q[1], th)), inner - 2)) push(th.quoteBorder("│ ") + l);
				continue;
			}
			const li = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
			if (li) {
				flushPara();
				const depth = Math.floor(li[1].length / 2);
				const bullet = /\d/.test(li[2]) ? li[2] : "-";
				const lead = "  ".repeat(depth);
				const task = /^\[([ xX])\]\s+(.*)$/.exec(li[3]);
				const body = task ? `${task[1] === " " ? "☐" : "☑"} ${task[2]}` : li[3];
				const head = `${lead}${th.listBullet(bullet)} `;
				const hw = visibleWidth(head);
				wrap(this.style(inline(body, th)), inner - hw).forEach((l, k) => push((k === 0 ? head : " ".repeat(hw)) + l));
				continue;
			}
			if (/^\s*\|.*\|\s*$/.test(line)) {
				flushPara();
				const rows = [];
				for (; i < src.length && /^\s*\|.*\|\s*$/.test(src[i]); i++) {
					if (/^\s*\|[\s:|-]+\|\s*$/.test(src[i])) continue;
					rows.push(src[i].trim().slice(1, -1).split("|").map((c) => inline(c.trim(), th)));
				}
				i--;
				const cols = Math.max(...rows.map((r) => r.length));
				const widths = Array.from({ length: cols }, (_, c) => Math.max(...rows.map((r) => visibleWidth(r[c] ?? ""))));
				rows.forEach((r, k) => {
					push(r.map((c, j) => c + " ".repeat(Math.max(0, widths[j] - visibleWidth(c)))).join(" │ "));
					if (k === 0) push(widths.map((w) => "─".repeat(w)).join("─┼─"));
				});
				continue;
			}
			para.push(line.trim());
		}
		flushPara();
		while (out.length && out[out.length - 1] === "") out.pop();
		if (out.length === 0) return [];
		const blank = Array(this.paddingY).fill("");
		return [...blank, ...out, ...blank];
	}
}

// ---- Loader, CancellableLoader ----

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Loader extends Text {
	constructor(ui, spinnerColorFn = id, messageColorFn = id, message = "Loading...", indicator) {
		super("", 1, 0);
		this.ui = ui;
		this.spinnerColorFn = spinnerColorFn ?? id;
		this.messageColorFn = messageColorFn ?? id;
		this.message = message;
		this.frame = 0;
		this.timer = undefined;
		this.setIndicator(indicator);
		this.start();
	}
	render(width) {
		return ["", ...super.render(width)];
	}
	start() {
		this.update();
		if (this.timer || this.frames.length <= 1) return;
		this.timer = setInterval(() => {
			this.frame = (this.frame + 1) % this.frames.length;
			this.update();
		}, this.intervalMs);
		this.timer.unref?.();
	}
	stop() {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
	}
	dispose() {
		this.stop();
	}
	setMessage(message) {
		this.message = message;
		this.update();
	}
	setIndicator(indicator) {
		this.frames = Array.isArray(indicator?.frames) ? [...indicator.frames] : FRAMES;
		this.verbatim = Array.isArray(indicator?.frames);
		this.intervalMs = indicator?.intervalMs > 0 ? indicator.intervalMs : 80;
		this.frame = 0;
		if (this.timer) {
			this.stop();
			this.start();
		}
	}
	update() {
		const f = this.frames[this.frame % Math.max(1, this.frames.length)] ?? "";
		const spin = f === "" ? "" : `${this.verbatim ? f : this.spinnerColorFn(f)} `;
		this.setText(spin + this.messageColorFn(this.message));
		this.ui?.requestRender?.();
	}
}

export class CancellableLoader extends Loader {
	#ac = new AbortController();
	onAbort = undefined;
	get signal() {
		return this.#ac.signal;
	}
	get aborted() {
		return this.#ac.signal.aborted;
	}
	handleInput(data) {
		if (getKeybindings().matches(data, "tui.select.cancel")) {
			this.#ac.abort();
			this.onAbort?.();
		}
	}
	dispose() {
		this.stop();
	}
}

// ---- Image ----

// getImageDimensions reads PNG, GIF, JPEG and WebP dimensions from base64 data.
export function getImageDimensions(base64) {
	let b;
	try {
		b = Buffer.from(String(base64 ?? ""), "base64");
	} catch {
		return undefined;
	}
	if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { widthPx: b.readUInt32BE(16), heightPx: b.readUInt32BE(20) };
	if (b.length >= 10 && b.toString("ascii", 0, 3) === "GIF") return { widthPx: b.readUInt16LE(6), heightPx: b.readUInt16LE(8) };
	if (b.length >= 30 && b.toString("ascii", 0, 4) === "RIFF" && b.toString("ascii", 8, 12) === "WEBP") {
		const kind = b.toString("ascii", 12, 16);
		if (kind === "VP8X") return { widthPx: 1 + b.readUIntLE(24, 3), heightPx: 1 + b.readUIntLE(27, 3) };
		if (kind === "VP8 ") return { widthPx: b.readUInt16LE(26) & 0x3fff, heightPx: b.readUInt16LE(28) & 0x3fff };
		if (kind === "VP8L") {
			const v = b.readUInt32LE(21);
			return { widthPx: (v & 0x3fff) + 1, heightPx: ((v >> 14) & 0x3fff) + 1 };
		}
	}
	if (b.length > 4 && b[0] === 0xff && b[1] === 0xd8) {
		for (let i = 2; i + 9 < b.length; ) {
			if (b[i] !== 0xff) return undefined;
			const marker = b[i + 1];
			const len = b.readUInt16BE(i + 2);
			if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
				return { widthPx: b.readUInt16BE(i + 7), heightPx: b.readUInt16BE(i + 5) };
			i += 2 + len;
		}
	}
	return undefined;
}

// Image: relay's TUI draws lines, so an extension's image shows as its
// fallback line (type, size, name) rather than terminal graphics.
export class Image {
	constructor(base64Data, mimeType, theme, options = {}, dimensions) {
		this.base64Data = base64Data;
		this.mimeType = mimeType;
		this.theme = { fallbackColor: id, ...(theme ?? {}) };
		this.options = options ?? {};
		this.dimensions = dimensions ?? getImageDimensions(base64Data, mimeType);
	}
	getImageId() {
		return this.options.imageId;
	}
	invalidate() {}
	render(width) {
		const parts = [this.mimeType || "image"];
		if (this.dimensions) parts.push(`${this.dimensions.widthPx}x${this.dimensions.heightPx}`);
		if (this.options.filename) parts.push(this.options.filename);
		return [truncateToWidth(this.theme.fallbackColor(`[Image: ${parts.join(" ")}]`), width, "")];
	}
}

// ---- HStack, ScrollView, MouseRegion ----

// HStack lays children side by side: widths[i] is a column count, a
// fraction of the width ("30%") or undefined (an equal share of what is
// left); gap columns between them.
export class HStack extends Container {
	constructor(options = {}) {
		super();
		this.gap = options?.gap ?? 1;
		this.widths = options?.widths ?? [];
	}
	columns(width) {
		const n = this.children.length;
		const free = Math.max(0, width - this.gap * Math.max(0, n - 1));
		const fixed = this.children.map((_, i) => {
			const w = this.widths[i];
			if (typeof w === "number") return Math.max(0, Math.floor(w));
			if (typeof w === "string" && w.endsWith("%")) return Math.floor((free * parseFloat(w)) / 100);
			return undefined;
		});
		const used = fixed.reduce((a, w) => a + (w ?? 0), 0);
		const flex = fixed.filter((w) => w === undefined).length;
		let rest = Math.max(0, free - used);
		return fixed.map((w) => {
			if (w !== undefined) return Math.min(w, free);
			const share = Math.floor(rest / flex);
			return share;
		}).map((w, i, all) => (i === all.length - 1 && fixed[i] === undefined ? Math.max(0, free - all.slice(0, -1).reduce((a, x) => a + x, 0)) : w));
	}
	render(width) {
		const cols = this.columns(width);
		const blocks = this.children.map((c, i) => (cols[i] > 0 ? c.render(cols[i]) : []));
		const h = Math.max(0, ...blocks.map((b) => b.length));
		const gap = " ".repeat(this.gap);
		const out = [];
		for (let r = 0; r < h; r++) {
			const cells = blocks.map((b, i) => {
				const s = truncateToWidth(b[r] ?? "", cols[i], "");
				return s + " ".repeat(Math.max(0, cols[i] - visibleWidth(s)));
			});
			out.push(truncateToWidth(cells.join(gap).replace(/\s+$/, ""), width, ""));
		}
		return out;
	}
}

// ScrollView shows height lines of its child from an offset; keys scroll
// it (up/down, page up/down, home/end) when it has focus.
export class ScrollView {
	constructor(child, height = 10) {
		this.child = child;
		this.height = Math.max(1, height | 0);
		this.offset = 0;
		this.total = 0;
		this.showScrollbar = true;
	}
	setChild(c) {
		this.child = c;
		this.offset = 0;
	}
	setHeight(h) {
		this.height = Math.max(1, h | 0);
	}
	scrollTo(offset) {
		this.offset = Math.max(0, Math.min(offset, Math.max(0, this.total - this.height)));
	}
	scrollBy(n) {
		this.scrollTo(this.offset + n);
	}
	scrollToBottom() {
		this.offset = Number.MAX_SAFE_INTEGER;
	}
	invalidate() {
		this.child?.invalidate?.();
	}
	handleInput(data) {
		const k = parseKey(data);
		if (k === "up") this.scrollBy(-1);
		else if (k === "down") this.scrollBy(1);
		else if (k === "pageUp") this.scrollBy(-this.height);
		else if (k === "pageDown") this.scrollBy(this.height);
		else if (k === "home") this.scrollTo(0);
		else if (k === "end") this.scrollTo(this.total);
		else this.child?.handleInput?.(data);
	}
	render(width) {
		const bar = this.showScrollbar ? 1 : 0;
		const lines = this.child ? this.child.render(Math.max(1, width - bar)) : [];
		this.total = lines.length;
		this.offset = Math.max(0, Math.min(this.offset, Math.max(0, lines.length - this.height)));
		const shown = lines.slice(this.offset, this.offset + this.height);
		if (!bar || lines.length <= this.height) return shown.map((l) => truncateToWidth(l, width, ""));
		const thumb = Math.max(1, Math.round((this.height * this.height) / lines.length));
		const top = Math.round(((this.height - thumb) * this.offset) / Math.max(1, lines.length - this.height));
		return Array.from({ length: this.height }, (_, r) => {
			const l = truncateToWidth(shown[r] ?? "", width - 1, "");
			return l + " ".repeat(Math.max(0, width - 1 - visibleWidth(l))) + (r >= top && r < top + thumb ? "┃" : "│");
		});
	}
}

// MouseRegion wraps a child and answers SGR mouse reports (\x1b[<b;x;yM)
// that reach it: onClick(x, y) and onScroll(±1) with coordinates as the
// terminal sent them.
export class MouseRegion {
	constructor(child, handlers = {}) {
		this.child = child;
		this.onClick = handlers.onClick;
		this.onScroll = handlers.onScroll;
	}
	invalidate() {
		this.child?.invalidate?.();
	}
	render(width) {
		return this.child ? this.child.render(width) : [];
	}
	handleInput(data) {
		const m = /^\x1b\[<(\d+);(\d+);(\d+)([Mm])$/.exec(data);
		if (!m) return this.child?.handleInput?.(data);
		const b = Number(m[1]);
		if (b === 64 || b === 65) return this.onScroll?.(b === 64 ? -1 : 1);
		if (m[4] === "M" && (b & 3) === 0) this.onClick?.(Number(m[2]), Number(m[3]));
	}
}

