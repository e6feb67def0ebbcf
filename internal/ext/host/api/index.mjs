// The modules extensions import (@relay-harness/*, @mariozechner/pi-*,
// typebox, @sinclair/typebox) all resolve to this file: relay's own small
// implementations of what extensions use from them. It holds no state of
// its own; what depends on the running relay is read from the host through
// globalThis.__relayHost, so a second copy of this module (an extension
// importing it another way) behaves the same.

const host = () => globalThis.__relayHost ?? {};

export const CONFIG_DIR_NAME = ".relay";
export const VERSION = "relay";
export function getAgentDir() {
	return host().agentDir ?? "";
}

// ---- schemas (TypeBox-shaped JSON Schema) ----
// TypeBox marks optional properties and kinds with these registry symbols;
// using the same ones keeps schemas from a real typebox copy compatible.
const OptionalKind = Symbol.for("TypeBox.Optional");
const Kind = Symbol.for("TypeBox.Kind");

function schema(kind, base, opts) {
	const s = { ...(opts ?? {}), ...base };
	Object.defineProperty(s, Kind, { value: kind, enumerable: false });
	return s;
}

function isOptional(s) {
	return s != null && s[OptionalKind] === "Optional";
}

function objectSchema(properties, opts) {
	const props = {};
	const required = [];
	for (const [k, v] of Object.entries(properties ?? {})) {
		props[k] = v;
		if (!isOptional(v)) required.push(k);
	}
	const base = { type: "object", properties: props };
	if (required.length) base.required = required;
	return schema("Object", base, opts);
}

export const Type = {
	Object: objectSchema,
	String: (o) => schema("String", { type: "string" }, o),
	Number: (o) => schema("Number", { type: "number" }, o),
	Integer: (o) => schema("Integer", { type: "integer" }, o),
	Boolean: (o) => schema("Boolean", { type: "boolean" }, o),
	Null: (o) => schema("Null", { type: "null" }, o),
	Any: (o) => schema("Any", {}, o),
	Unknown: (o) => schema("Unknown", {}, o),
	Void: (o) => schema("Void", { type: "null" }, o),
	Undefined: (o) => schema("Undefined", {}, o),
	Literal: (v, o) => schema("Literal", { const: v, type: typeof v === "number" ? "number" : typeof v }, o),
	Union: (items, o) => schema("Union", { anyOf: items }, o),
	Intersect: (items, o) => schema("Intersect", { allOf: items }, o),
	Array: (items, o) => schema("Array", { type: "array", items }, o),
	Tuple: (items, o) =>
		schema("Tuple", { type: "array", items, additionalItems: false, minItems: items.length, maxItems: items.length }, o),
	Record: (_key, value, o) => schema("Record", { type: "object", patternProperties: { "^(.*)$": value } }, o),
	Enum: (e, o) => {
		const values = Object.values(e ?? {}).filter((v) => typeof e[v] !== "number");
		return schema("Union", { anyOf: values.map((v) => ({ const: v, type: typeof v })) }, o);
	},
	Optional: (s) => {
		const c = { ...s };
		Object.defineProperty(c, OptionalKind, { value: "Optional", enumerable: false });
		if (s?.[Kind]) Object.defineProperty(c, Kind, { value: s[Kind], enumerable: false });
		return c;
	},
	Readonly: (s) => s,
	ReadonlyOptional: (s) => Type.Optional(s),
	Partial: (s, o) => {
		const props = {};
		for (const [k, v] of Object.entries(s?.properties ?? {})) props[k] = Type.Optional(v);
		return objectSchema(props, o);
	},
	Required: (s, o) => {
		const props = {};
		for (const [k, v] of Object.entries(s?.properties ?? {})) props[k] = { ...v };
		return objectSchema(props, o);
	},
	Pick: (s, keys, o) => {
		const props = {};
		for (const k of keys) if (s?.properties?.[k]) props[k] = s.properties[k];
		const out = objectSchema(props, o);
		out.required = (s.required ?? []).filter((k) => keys.includes(k));
		return out;
	},
	Omit: (s, keys, o) => {
		const props = {};
		for (const [k, v] of Object.entries(s?.properties ?? {})) if (!keys.includes(k)) props[k] = v;
		const out = objectSchema(props, o);
		out.required = (s.required ?? []).filter((k) => !keys.includes(k));
		return out;
	},
	Unsafe: (s) => s,
	Ref: (ref) => ({ $ref: typeof ref === "string" ? ref : ref.$id }),
};

export const Kinds = { OptionalKind, Kind };
export { OptionalKind, Kind };

// StringEnum: a string with fixed values, in the form every provider
// accepts (Google rejects anyOf of consts).
export function StringEnum(values, opts) {
	return schema("Unsafe", { type: "string", enum: [...values] }, opts);
}

export function defineTool(tool) {
	return tool;
}

export function isToolCallEventType(name, event) {
	return event?.toolName === name;
}
export const isBashToolResult = (e) => e?.toolName === "bash";
export const isReadToolResult = (e) => e?.toolName === "read";
export const isEditToolResult = (e) => e?.toolName === "edit";
export const isWriteToolResult = (e) => e?.toolName === "write";
export const isGrepToolResult = (e) => e?.toolName === "grep";
export const isFindToolResult = (e) => e?.toolName === "find";
export const isLsToolResult = (e) => e?.toolName === "ls";

// ---- truncation helpers (the built-in tools' limits) ----
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const DEFAULT_MAX_LINES = 2000;

export function formatSize(bytes) {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function truncateBy(content, opts, fromEnd) {
	const maxLines = opts?.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = opts?.maxBytes ?? DEFAULT_MAX_BYTES;
	const lines = String(content).split("\n");
	const totalLines = lines.length;
	const totalBytes = Buffer.byteLength(String(content));
	const kept = [];
	let bytes = 0;
	let truncatedBy = null;
	const order = fromEnd ? [...lines].reverse() : lines;
	for (const line of order) {
		if (kept.length >= maxLines) {
			truncatedBy = "lines";
			break;
		}
		const b = Buffer.byteLength(line) + (kept.length ? 1 : 0);
		if (bytes + b > maxBytes) {
			truncatedBy = "bytes";
			break;
		}
		kept.push(line);
		bytes += b;
	}
	if (fromEnd) kept.reverse();
	const out = kept.join("\n");
	return {
		content: out,
		truncated: truncatedBy !== null,
		truncatedBy,
		totalLines,
		totalBytes,
		outputLines: kept.length,
		outputBytes: Buffer.byteLength(out),
		lastLinePartial: false,
		firstLineExceedsLimit: truncatedBy === "bytes" && kept.length === 0,
		maxLines,
		maxBytes,
	};
}
export const truncateHead = (c, o) => truncateBy(c, o, false);
export const truncateTail = (c, o) => truncateBy(c, o, true);
export function truncateLine(line, maxChars = 500) {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

// withFileMutationQueue serialises read-modify-write operations per file.
const queues = new Map();
export async function withFileMutationQueue(file, fn) {
	const prev = queues.get(file) ?? Promise.resolve();
	let release;
	const next = new Promise((r) => (release = r));
	queues.set(file, prev.then(() => next));
	await prev;
	try {
		return await fn();
	} finally {
		release();
		if (queues.get(file) === next) queues.delete(file);
	}
}

// ---- event bus between extensions ----
export function createEventBus() {
	const subs = new Map();
	return {
		on(channel, fn) {
			if (!subs.has(channel)) subs.set(channel, new Set());
			subs.get(channel).add(fn);
			return () => subs.get(channel)?.delete(fn);
		},
		emit(channel, data) {
			for (const fn of subs.get(channel) ?? []) {
				try {
					const r = fn(data);
					if (r && typeof r.catch === "function") r.catch((e) => host().reportError?.("events:" + channel, e));
				} catch (e) {
					host().reportError?.("events:" + channel, e);
				}
			}
		},
		clear() {
			subs.clear();
		},
	};
}

// ---- TUI helpers: widths, keys, simple components ----
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\/g;

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

export function sliceByColumn(s, start, end) {
	let out = "";
	let col = 0;
	for (const ch of String(s).replace(ANSI, "")) {
		const cw = charWidth(ch.codePointAt(0));
		if (col >= start && col + cw <= end) out += ch;
		col += cw;
	}
	return out;
}

export function wrapTextWithAnsi(text, width) {
	const out = [];
	for (const para of String(text).split("\n")) {
		let line = "";
		for (const word of para.split(/(\s+)/)) {
			if (visibleWidth(line + word) > width && line !== "") {
				out.push(line.trimEnd());
				line = word.trimStart();
			} else line += word;
			while (visibleWidth(line) > width) {
				out.push(sliceByColumn(line, 0, width));
				line = sliceByColumn(line, width, Infinity);
			}
		}
		out.push(line);
	}
	return out;
}

export const CURSOR_MARKER = "\x1b_pi:c\x07";

// Key ids ("ctrl+c", "shift+tab", "escape", "up", "a") against raw input.
const NAMED = {
	escape: ["\x1b"],
	esc: ["\x1b"],
	enter: ["\r", "\n"],
	return: ["\r", "\n"],
	tab: ["\t"],
	space: [" "],
	backspace: ["\x7f", "\b"],
	delete: ["\x1b[3~"],
	up: ["\x1b[A", "\x1bOA"],
	down: ["\x1b[B", "\x1bOB"],
	right: ["\x1b[C", "\x1bOC"],
	left: ["\x1b[D", "\x1bOD"],
	home: ["\x1b[H", "\x1bOH", "\x1b[1~"],
	end: ["\x1b[F", "\x1bOF", "\x1b[4~"],
	pageup: ["\x1b[5~"],
	pagedown: ["\x1b[6~"],
	"shift+tab": ["\x1b[Z"],
	"shift+enter": ["\x1b[13;2u"],
	"alt+enter": ["\x1b[13;3u", "\x1b\r"],
};

export function matchesKey(data, key) {
	const k = String(key).toLowerCase();
	if (NAMED[k]) return NAMED[k].includes(data);
	const m = /^ctrl\+([a-z])$/.exec(k);
	if (m) return data === String.fromCharCode(m[1].charCodeAt(0) - 96);
	const a = /^alt\+(.)$/.exec(k);
	if (a) return data === "\x1b" + a[1];
	return data === key;
}

export const Key = new Proxy(
	{},
	{
		get: (_t, p) => (typeof p === "string" ? p.replace(/([a-z])([A-Z])/g, "$1+$2").toLowerCase() : undefined),
	},
);

export class Text {
	constructor(text = "", paddingX = 1, paddingY = 1) {
		this.text = text;
		this.paddingX = paddingX;
		this.paddingY = paddingY;
	}
	setText(t) {
		this.text = t;
	}
	invalidate() {}
	render(width) {
		const inner = Math.max(1, width - 2 * this.paddingX);
		const pad = " ".repeat(this.paddingX);
		const lines = this.text ? wrapTextWithAnsi(this.text, inner).map((l) => pad + l) : [];
		const blank = Array(this.paddingY).fill("");
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
	constructor(paddingX = 1, paddingY = 1) {
		super();
		this.paddingX = paddingX;
		this.paddingY = paddingY;
	}
	render(width) {
		const pad = " ".repeat(this.paddingX);
		const inner = super.render(Math.max(1, width - 2 * this.paddingX)).map((l) => pad + l);
		const blank = Array(this.paddingY).fill("");
		return [...blank, ...inner, ...blank];
	}
}

export const VStack = Container;

export function keyHint(key, description) {
	return `${key} ${description}`;
}
export const rawKeyHint = keyHint;
export const keyText = (k) => k;

// The prompt editor extensions extend (ctx.ui.setEditorComponent).
export { Editor, CustomEditor } from "./editor.mjs";
// Provider extensions: the assistant message event stream and cost.
export { AssistantMessageEventStream, EventStream, createAssistantMessageEventStream, calculateCost } from "./stream.mjs";
