// The basic pieces of @relay-harness/tui: display widths of ANSI text and
// the simple components (Text, Container, Box, ...) the richer ones in
// tui-components.mjs build on. Kept apart from index.mjs so those modules
// can extend these classes without an import cycle.

// CSI, OSC and APC/DCS strings (CURSOR_MARKER is an APC ended by BEL).
const ANSI = /\x1b\[[0-9;?:]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b\x07]*(?:\x07|\x1b\\)/g;

function charWidth(cp) {
	if (cp === 0 || cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
	if (cp >= 0x300 && cp <= 0x36f) return 0; // combining marks
	if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
	if (
		(cp >= 0x1100 && cp <= 0x115f) ||
		(cp >= 0x2e80 && cp <= 0xa4cf) ||
		(cp >= 0xac00 && cp <= 0xd7a3) ||
		(cp >= 0xf900 && cp <= 0xfaff) ||
		(cp >= 0xfe30 && cp <= 0xfe4f) ||
		(cp >= 0xff00 && cp <= 0xff60) ||
		(cp >= 0xffe0 && cp <= 0xffe6) ||
		(cp >= 0x1f300 && cp <= 0x1faff) ||
		(cp >= 0x20000 && cp <= 0x3fffd)
	)
		return 2;
	return 1;
}

export function visibleWidth(s) {
	let w = 0;
	for (const ch of String(s).replace(ANSI, "")) w += charWidth(ch.codePointAt(0));
	return w;
}

export function truncateToWidth(s, width, ellipsis = "...", pad = false) {
	s = String(s);
	if (visibleWidth(s) <= width) return pad ? s + " ".repeat(width - visibleWidth(s)) : s;
	const ew = visibleWidth(ellipsis);
	const limit = Math.max(0, width - ew);
	let out = "";
	let w = 0;
	let i = 0;
	while (i < s.length) {
		ANSI.lastIndex = i;
		const m = ANSI.exec(s);
		if (m && m.index === i) {
			out += m[0];
			i += m[0].length;
			continue;
		}
		const ch = String.fromCodePoint(s.codePointAt(i));
		const cw = charWidth(ch.codePointAt(0));
		if (w + cw > limit) break;
		out += ch;
		w += cw;
		i += ch.length;
	}
	out += (out.includes("\x1b[") ? "\x1b[0m" : "") + ellipsis;
	return pad ? out + " ".repeat(Math.max(0, width - visibleWidth(out))) : out;
}

// pieces splits s into escape sequences and characters with widths.
function pieces(s) {
	const out = [];
	let i = 0;
	s = String(s);
	while (i < s.length) {
		ANSI.lastIndex = i;
		const m = s[i] === "\x1b" ? ANSI.exec(s) : null;
		if (m && m.index === i) {
			out.push({ esc: m[0] });
			i += m[0].length;
			continue;
		}
		const ch = String.fromCodePoint(s.codePointAt(i));
		out.push({ ch, w: charWidth(ch.codePointAt(0)) });
		i += ch.length;
	}
	return out;
}

// sliceByColumn is length columns of s from column start; its escape
// sequences are kept so the slice keeps its colours.
export function sliceByColumn(s, start, length = Infinity) {
	const end = start + length;
	let out = "";
	let col = 0;
	for (const p of pieces(s)) {
		if (p.esc) {
			if (col < end) out += p.esc;
			continue;
		}
		if (col >= start && col + p.w <= end) out += p.ch;
		col += p.w;
	}
	return out;
}

// activeStyle is the SGR state after s, starting from prev.
function activeStyle(s, prev = "") {
	let act = prev;
	for (const m of String(s).matchAll(/\x1b\[([0-9;:]*)m/g)) act = m[1] === "" || m[1] === "0" ? "" : act + m[0];
	return act;
}

// wrapTextWithAnsi wraps at word boundaries (a longer word is cut) to
// width columns; each line starts with the styles in effect where the
// previous one ended, so colours survive the TUI's per-line reset.
export function wrapTextWithAnsi(text, width) {
	width = Math.max(1, Math.floor(width));
	const out = [];
	let style = "";
	for (const para of String(text).split("\n")) {
		let line = style;
		let w = 0;
		const flush = () => {
			out.push(line.replace(/\s+$/, ""));
			style = activeStyle(line);
			line = style;
			w = 0;
		};
		for (const word of para.split(/(\s+)/)) {
			if (word === "") continue;
			const ww = visibleWidth(word);
			const space = /^\s+$/.test(word);
			if (w + ww <= width) {
				line += word;
				w += ww;
				continue;
			}
			if (space) {
				// A break swallows the spaces it falls on.
				if (w > 0) flush();
				continue;
			}
			if (w > 0) flush();
			if (ww <= width) {
				line += word;
				w = ww;
				continue;
			}
			for (const p of pieces(word)) {
				if (p.esc) {
					line += p.esc;
					continue;
				}
				if (w + p.w > width) flush();
				line += p.ch;
				w += p.w;
			}
		}
		out.push(line);
		style = activeStyle(line);
	}
	return out;
}

export const CURSOR_MARKER = "\x1b_pi:c\x07";

// fill pads a line to width and paints it with bg (a function that
// colours a string), when there is one.
function fill(line, width, bg) {
	if (!bg) return line;
	return bg(line + " ".repeat(Math.max(0, width - visibleWidth(line))));
}

export class Text {
	constructor(text = "", paddingX = 1, paddingY = 1, bgFn) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.bgFn = bgFn;
	}
	setText(t) {
		this.text = t;
	}
	setCustomBgFn(fn) {
		this.bgFn = fn;
	}
	invalidate() {}
	render(width) {
		const inner = Math.max(1, width - 2 * this.paddingX);
		const pad = " ".repeat(this.paddingX);
		// Padding wider than a narrow width is cut with the text.
		const lines = this.text ? wrapTextWithAnsi(this.text, inner).map((l) => fill(truncateToWidth(pad + l, width, ""), width, this.bgFn)) : [];
		const blank = Array(this.paddingY).fill(fill("", width, this.bgFn));
		return lines.length ? [...blank, ...lines, ...blank] : [];
	}
}

export class TruncatedText extends Text {
	render(width) {
		return [truncateToWidth(" ".repeat(this.paddingX) + this.text.split("\n")[0], width)];
	}
}

export class Spacer {
	constructor(lines = 1) {
		this.lines = lines;
	}
	invalidate() {}
	render() {
		return Array(this.lines).fill("");
	}
}

export class Container {
	constructor() {
		this.children = [];
	}
	addChild(c) {
		this.children.push(c);
	}
	removeChild(c) {
		this.children = this.children.filter((x) => x !== c);
	}
	clear() {
		this.children = [];
	}
	invalidate() {
		for (const c of this.children) c.invalidate?.();
	}
	render(width) {
		return this.children.flatMap((c) => c.render(width));
	}
}

export class Box extends Container {
	constructor(paddingX = 1, paddingY = 1, bgFn) {
		super();
		this.paddingX = paddingX;
		this.paddingY = paddingY;
		this.bgFn = bgFn;
	}
	setBgFn(fn) {
		this.bgFn = fn;
	}
	render(width) {
		const pad = " ".repeat(this.paddingX);
		const inner = super
			.render(Math.max(1, width - 2 * this.paddingX))
			.map((l) => fill(truncateToWidth(pad + l, width, ""), width, this.bgFn));
		const blank = Array(this.paddingY).fill(fill("", width, this.bgFn));
		return [...blank, ...inner, ...blank];
	}
}

export const VStack = Container;

