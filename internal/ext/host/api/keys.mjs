// Keys for extension components: the Key ids of @relay-harness/tui
// ("ctrl+shift+p", "enter", "a"), parsing the terminal's input (legacy
// sequences, xterm modifyOtherKeys and the Kitty keyboard protocol with
// its press/repeat/release events), and the keybinding ids (tui.*, app.*)
// components match against.

const MODS = ["ctrl", "shift", "alt", "super"];
const ALIAS = { esc: "escape", return: "enter", pageup: "pageUp", pagedown: "pageDown", del: "delete", ins: "insert" };
const SPECIAL = [
	"escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end", "pageUp", "pageDown",
	"up", "down", "left", "right", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
];
const SYMBOLS = {
	backtick: "`", hyphen: "-", equals: "=", leftbracket: "[", rightbracket: "]", backslash: "\\", semicolon: ";", quote: "'",
	comma: ",", period: ".", slash: "/", exclamation: "!", at: "@", hash: "#", dollar: "$", percent: "%", caret: "^",
	ampersand: "&", asterisk: "*", leftparen: "(", rightparen: ")", underscore: "_", plus: "+", pipe: "|", tilde: "~",
	leftbrace: "{", rightbrace: "}", colon: ":", lessthan: "<", greaterthan: ">", question: "?",
};

function combo(...mods) {
	return (k) => `${mods.join("+")}+${k}`;
}

export const Key = Object.freeze({
	esc: "esc",
	return: "return",
	...Object.fromEntries(SPECIAL.map((k) => [k, k])),
	...SYMBOLS,
	ctrl: combo("ctrl"),
	shift: combo("shift"),
	alt: combo("alt"),
	super: combo("super"),
	ctrlShift: combo("ctrl", "shift"),
	shiftCtrl: combo("shift", "ctrl"),
	ctrlAlt: combo("ctrl", "alt"),
	altCtrl: combo("alt", "ctrl"),
	shiftAlt: combo("shift", "alt"),
	altShift: combo("alt", "shift"),
	ctrlSuper: combo("ctrl", "super"),
	superCtrl: combo("super", "ctrl"),
	shiftSuper: combo("shift", "super"),
	superShift: combo("super", "shift"),
	altSuper: combo("alt", "super"),
	superAlt: combo("super", "alt"),
	ctrlShiftAlt: combo("ctrl", "shift", "alt"),
	ctrlShiftSuper: combo("ctrl", "shift", "super"),
});

// normalizeKeyId orders the modifiers and spells the key one way, so
// "shift+ctrl+P" and "ctrl+shift+p" are the same id.
export function normalizeKeyId(id) {
	id = String(id ?? "");
	if (id.length === 1) return id;
	const parts = id.split("+");
	// "ctrl++" is ctrl and the plus key.
	let key = parts.pop();
	if (key === "" && parts.length && parts[parts.length - 1] === "") {
		parts.pop();
		key = "+";
	}
	const mods = new Set(parts.map((p) => p.toLowerCase()).filter(Boolean));
	let k = key.length === 1 ? (mods.size ? key.toLowerCase() : key) : key.toLowerCase();
	k = ALIAS[k] ?? (SPECIAL.find((s) => s.toLowerCase() === k) || k);
	const ordered = MODS.filter((m) => mods.has(m));
	return [...ordered, k].join("+");
}

const CSI_LETTER = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", P: "f1", Q: "f2", R: "f3", S: "f4", E: "clear" };
const CSI_TILDE = {
	1: "home", 2: "insert", 3: "delete", 4: "end", 5: "pageUp", 6: "pageDown", 7: "home", 8: "end",
	11: "f1", 12: "f2", 13: "f3", 14: "f4", 15: "f5", 17: "f6", 18: "f7", 19: "f8", 20: "f9", 21: "f10", 23: "f11", 24: "f12",
};
const CODEPOINT = { 9: "tab", 13: "enter", 27: "escape", 32: "space", 127: "backspace", 8: "backspace" };

function withMods(key, mask) {
	const mods = [];
	if (mask & 4) mods.push("ctrl");
	if (mask & 1) mods.push("shift");
	if (mask & 2) mods.push("alt");
	if (mask & 8) mods.push("super");
	return normalizeKeyId([...mods, key].join("+"));
}

// kitty decodes a CSI sequence with a modifier field: {key, event}.
function decodeCSI(data) {
	let m = /^\x1b\[(\d+)(?::(\d*))?(?::(\d+))?(?:;(\d+)(?::(\d+))?)?(?:;[\d:]*)?u$/.exec(data);
	if (m) {
		const code = Number(m[1]);
		const mask = m[4] ? Number(m[4]) - 1 : 0;
		let key = CODEPOINT[code] ?? (code >= 57399 && code <= 57425 ? kittyKeypad(code) : String.fromCodePoint(code));
		if (key.length === 1) key = key.toLowerCase();
		return { key: withMods(key, mask), event: Number(m[5] ?? 1) };
	}
	m = /^\x1b\[27;(\d+);(\d+)~$/.exec(data); // xterm modifyOtherKeys
	if (m) {
		const code = Number(m[2]);
		let key = CODEPOINT[code] ?? String.fromCodePoint(code);
		if (key.length === 1) key = key.toLowerCase();
		return { key: withMods(key, Number(m[1]) - 1), event: 1 };
	}
	m = /^\x1b\[(?:1)?(?:;(\d+)(?::(\d+))?)?([A-HPQRS])$/.exec(data);
	if (m && CSI_LETTER[m[3]]) return { key: withMods(CSI_LETTER[m[3]], m[1] ? Number(m[1]) - 1 : 0), event: Number(m[2] ?? 1) };
	m = /^\x1b\[(\d+)(?:;(\d+)(?::(\d+))?)?~$/.exec(data);
	if (m && CSI_TILDE[m[1]]) return { key: withMods(CSI_TILDE[m[1]], m[2] ? Number(m[2]) - 1 : 0), event: Number(m[3] ?? 1) };
	return undefined;
}

function kittyKeypad(code) {
	const pad = "0123456789.";
	return code - 57399 < pad.length ? pad[code - 57399] : "enter";
}

function legacy(data) {
	switch (data) {
		case "\r":
		case "\n":
			return "enter";
		case "\t":
			return "tab";
		case "\x7f":
		case "\b":
			return "backspace";
		case "\x1b":
			return "escape";
		case " ":
			return "space";
		case "\x00":
			return "ctrl+space";
		case "\x1b[Z":
			return "shift+tab";
		case "\x1b\r":
		case "\x1b\n":
			return "alt+enter";
		case "\x1b\x7f":
		case "\x1b\b":
			return "alt+backspace";
	}
	const ss3 = /^\x1bO([A-HPQRS])$/.exec(data);
	if (ss3 && CSI_LETTER[ss3[1]]) return CSI_LETTER[ss3[1]];
	if (data.length === 1) {
		const c = data.charCodeAt(0);
		if (c >= 1 && c <= 26) return `ctrl+${String.fromCharCode(c + 96)}`;
		if (c === 0x1c) return "ctrl+\\";
		if (c === 0x1d) return "ctrl+]";
		if (c === 0x1e) return "ctrl+^";
		if (c === 0x1f) return "ctrl+_";
		return data;
	}
	if ([...data].length === 1) return data;
	if (data.length >= 2 && data[0] === "\x1b" && !data.startsWith("\x1b[") && !data.startsWith("\x1bO")) {
		const inner = legacy(data.slice(1));
		if (inner) return normalizeKeyId(`alt+${inner}`);
	}
	return undefined;
}

// parseKey names the key data is ("ctrl+c", "shift+tab", "a"), undefined
// for what is not one key.
export function parseKey(data) {
	if (typeof data !== "string" || data === "") return undefined;
	const k = decodeCSI(data);
	if (k) return k.key;
	return legacy(data);
}

export function isKeyRelease(data) {
	return decodeCSI(String(data ?? ""))?.event === 3;
}
export function isKeyRepeat(data) {
	return decodeCSI(String(data ?? ""))?.event === 2;
}

// decodeKittyPrintable is the text a Kitty-encoded printable key types.
export function decodeKittyPrintable(data) {
	const m = /^\x1b\[(\d+)(?::(\d*))?(?::\d+)?(?:;(\d+)(?::\d+)?)?u$/.exec(String(data ?? ""));
	if (!m) return undefined;
	const mask = m[3] ? Number(m[3]) - 1 : 0;
	if (mask & ~1) return undefined;
	const code = mask & 1 && m[2] ? Number(m[2]) : Number(m[1]);
	if (code < 32 || code === 127 || CODEPOINT[code]) return undefined;
	return String.fromCodePoint(code);
}

let kittyActive = false;
export const setKittyProtocolActive = (v) => (kittyActive = !!v);
export const isKittyProtocolActive = () => kittyActive;

export function matchesKey(data, keyId) {
	const got = parseKey(data);
	if (got === undefined) return false;
	const want = normalizeKeyId(keyId);
	if (got === want) return true;
	// A shifted printable key arrives as its character ("A" is shift+a).
	if (/^shift\+.$/.test(want) && got === want.slice(6).toUpperCase() && got !== want.slice(6)) return true;
	// Terminals send "\n" for ctrl+j and shift+enter where "\r" is enter.
	if (data === "\n" && (want === "shift+enter" || want === "ctrl+j")) return true;
	return false;
}

// ---- keybinding ids ----
export const TUI_KEYBINDINGS = {
	"tui.editor.cursorUp": ["up"],
	"tui.editor.cursorDown": ["down"],
	"tui.editor.cursorLeft": ["left", "ctrl+b"],
	"tui.editor.cursorRight": ["right", "ctrl+f"],
	"tui.editor.cursorWordLeft": ["alt+left", "ctrl+left", "alt+b"],
	"tui.editor.cursorWordRight": ["alt+right", "ctrl+right", "alt+f"],
	"tui.editor.cursorLineStart": ["home", "ctrl+a"],
	"tui.editor.cursorLineEnd": ["end", "ctrl+e"],
	"tui.editor.pageUp": ["pageUp"],
	"tui.editor.pageDown": ["pageDown"],
	"tui.editor.deleteCharBackward": ["backspace"],
	"tui.editor.deleteCharForward": ["delete", "ctrl+d"],
	"tui.editor.deleteWordBackward": ["ctrl+w", "alt+backspace"],
	"tui.editor.deleteWordForward": ["alt+d", "alt+delete"],
	"tui.editor.deleteToLineStart": ["ctrl+u"],
	"tui.editor.deleteToLineEnd": ["ctrl+k"],
	"tui.editor.yank": ["ctrl+y"],
	"tui.editor.undo": ["ctrl+-"],
	"tui.input.newLine": ["shift+enter"],
	"tui.input.submit": ["enter"],
	"tui.input.tab": ["tab"],
	"tui.input.copy": ["ctrl+c"],
	"tui.select.up": ["up"],
	"tui.select.down": ["down"],
	"tui.select.pageUp": ["pageUp"],
	"tui.select.pageDown": ["pageDown"],
	"tui.select.confirm": ["enter"],
	"tui.select.cancel": ["escape", "ctrl+c"],
};
export const APP_KEYBINDINGS = {
	"app.interrupt": ["escape"],
	"app.clear": ["ctrl+c"],
	"app.exit": ["ctrl+d"],
	"app.suspend": ["ctrl+z"],
	"app.editor.external": ["ctrl+g"],
	"app.clipboard.pasteImage": ["ctrl+v"],
	"app.model.select": ["ctrl+l"],
	"app.model.cycleForward": ["ctrl+p"],
	"app.model.cycleBackward": ["shift+ctrl+p"],
	"app.thinking.cycle": ["shift+tab"],
	"app.thinking.toggle": ["ctrl+t"],
	"app.tools.expand": ["ctrl+o"],
	"app.message.followUp": ["alt+enter"],
	"app.message.dequeue": ["alt+up"],
};

// KeybindingsManager answers whether input is a keybinding id's key (or a
// plain key id).
export class KeybindingsManager {
	constructor(definitions = { ...TUI_KEYBINDINGS, ...APP_KEYBINDINGS }, config = {}) {
		this.bindings = new Map();
		for (const [id, keys] of Object.entries(definitions)) this.bindings.set(id, [...keys]);
		for (const [id, keys] of Object.entries(config ?? {})) this.bindings.set(id, Array.isArray(keys) ? [...keys] : [keys]);
	}
	getKeys(id) {
		return this.bindings.get(id) ?? [];
	}
	matches(data, id) {
		const keys = this.bindings.get(id);
		if (!keys) return matchesKey(data, id);
		return keys.some((k) => matchesKey(data, k));
	}
}
let current;
export function getKeybindings() {
	return (current ??= new KeybindingsManager());
}
export function setKeybindings(kb) {
	current = kb;
}
