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

// ---- TUI: widths, keys, components ----
export * from "./tui-basic.mjs";
export * from "./keys.mjs";
export * from "./tui-components.mjs";
export * from "./agent-ui.mjs";
export * from "./tools.mjs";
export * from "./ai.mjs";
export * from "./conversation.mjs";

export function keyHint(key, description) {
	return `${key} ${description}`;
}
export const rawKeyHint = keyHint;
export const keyText = (k) => k;

// The prompt editor extensions extend (ctx.ui.setEditorComponent).
export { Editor, CustomEditor } from "./editor.mjs";
// Provider extensions: the assistant message event stream and cost.
export { AssistantMessageEventStream, EventStream, createAssistantMessageEventStream, calculateCost } from "./stream.mjs";
