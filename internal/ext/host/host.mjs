// relay's extension host. relay starts it with node when at least one
// extension is configured and talks JSON-RPC to it: one JSON object per
// line, relay -> host on fd 3, host -> relay on fd 4 (so an extension's
// console output on stdout/stderr can never corrupt the protocol).
//
// A message with "method" is a request (with "id") or a notification
// (without); a message with "id" and "result" or "error" answers a request
// of the other side. Each side numbers its own requests.
//
// The host loads each extension (TypeScript through jiti, installed by
// relay), calls its default export with an ExtensionAPI, and reports what
// it registered. relay calls back into the registered handlers, tools and
// commands; the extension's API calls that need relay (UI, session, model)
// go back as requests or notifications.

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import * as api from "./api/index.mjs";
import { makeRenderItem } from "./render.mjs";
import { makeUIHost } from "./uihost.mjs";
import { makeModelRegistry, runStream } from "./provider.mjs";

const require = createRequire(import.meta.url);

const nodeMajor = Number(process.versions.node.split(".")[0]);
if (nodeMajor < 20) {
	process.stderr.write(`extensions need Node.js 20 or newer; this is ${process.version}\n`);
	process.exit(3);
}

// ---- transport ----
const out = new net.Socket({ fd: 4, readable: false, writable: true });
const input = new net.Socket({ fd: 3, readable: true, writable: false });

function send(msg) {
	let line;
	try {
		line = JSON.stringify(msg);
	} catch (e) {
		// A result that cannot be serialised (a cycle, a BigInt) answers as
		// an error instead of killing the host.
		if (msg.id !== undefined && !msg.method) {
			line = JSON.stringify({ id: msg.id, error: { message: `result is not JSON: ${e.message}` } });
		} else return;
	}
	out.write(line + "\n");
}

const notify = (method, params) => send({ method, params });

let nextId = 0;
const waiting = new Map();
function request(method, params, onId) {
	const id = ++nextId;
	onId?.(id);
	send({ id, method, params });
	return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

// ---- state relay sends with each call (what sync getters read) ----
const state = {
	cwd: process.cwd(),
	mode: "print",
	hasUI: false,
	agentDir: "",
	flags: {},
	model: undefined,
	thinkingLevel: "off",
	sessionName: undefined,
	sessionFile: undefined,
	sessionId: "",
	leafId: null,
	activeTools: [],
	allTools: [],
	commands: [],
	idle: true,
	pending: false,
	systemPrompt: "",
	settings: {},
	usage: undefined,
};
function merge(s) {
	if (s && typeof s === "object") Object.assign(state, s);
}

globalThis.__relayHost = {
	get agentDir() {
		return state.agentDir;
	},
	reportError: (where, e) => notify("error", { ext: "", event: where, message: errText(e) }),
	// The API modules' own exchange with relay (tool factories, complete):
	// requests, notifications, and handlers for relay's notifications.
	request,
	notify,
	state,
	onNotification: (method, fn) => libHandlers.set(method, fn),
	get theme() {
		return themeProxy;
	},
};
const libHandlers = new Map();

function errText(e) {
	if (e instanceof Error) return e.message || String(e);
	return typeof e === "string" ? e : JSON.stringify(e);
}
function errOut(e) {
	return { message: errText(e), stack: e instanceof Error ? String(e.stack ?? "").split("\n").slice(0, 8).join("\n") : undefined };
}

// ---- extensions and what they registered ----
const exts = []; // {index, path, loaded, pending: [] (registrations made during load), flags: {}}
const handlers = new Map(); // id -> {ext, event, fn}
const tools = new Map(); // name -> {ext, def}
const commands = new Map(); // name -> {ext, opts}
const shortcuts = new Map(); // key -> {ext, opts}
const renderers = new Map(); // "message:type" -> fn
const providers = new Map(); // name -> {ext, config}
const virtualModels = new Map(); // "provider/id" -> {ext, def}
const controllers = new Map(); // relay request id -> AbortController
const bus = api.createEventBus();
let nextHandler = 0;

function register(ext, item) {
	if (!ext.loaded) ext.pending.push(item);
	else notify("register", { ext: ext.index, items: [item] });
}

const EVENTS = new Set([
	"project_trust", "resources_discover", "mcp_servers_change",
	"session_start", "session_info_changed", "session_before_switch", "session_before_fork", "session_before_compact",
	"session_compact", "session_compact_failed", "session_before_tree", "session_tree", "session_shutdown",
	"context", "context_with_system", "cache_warming_decision", "before_provider_request", "before_provider_headers",
	"after_provider_response", "provider_stream_event", "before_agent_start", "agent_start", "agent_end", "turn_start",
	"turn_end", "agent_before_settle", "agent_settled", "message_start", "message_update", "message_end",
	"tool_execution_start", "tool_execution_update", "tool_execution_end", "ui_prompt_start", "ui_prompt_end",
	"model_select", "thinking_level_select", "tool_call", "tool_result", "user_bash", "input", "entry_appended",
]);

function validSchema(s) {
	return s && typeof s === "object" && !Array.isArray(s) && (s.type === "object" || s.type === undefined) &&
		(s.properties === undefined || (typeof s.properties === "object" && !Array.isArray(s.properties)));
}

function makeAPI(ext) {
	const call = (method, ...args) => request("call", { ext: ext.index, method, args });
	const fire = (method, ...args) => notify("api", { ext: ext.index, method, args });
	return {
		on(event, fn) {
			if (typeof fn !== "function") throw new Error(`on(${JSON.stringify(event)}): handler is not a function`);
			if (!EVENTS.has(event)) throw new Error(`on(${JSON.stringify(event)}): unknown event`);
			const id = ++nextHandler;
			handlers.set(id, { ext, event, fn });
			register(ext, { kind: "handler", id, event });
			return () => {
				if (handlers.delete(id)) notify("unregister", { kind: "handler", id });
			};
		},
		registerTool(def) {
			if (!def || typeof def.name !== "string" || !/^[A-Za-z0-9_.:-]{1,128}$/.test(def.name))
				throw new Error(`registerTool: invalid tool name ${JSON.stringify(def?.name)}`);
			if (typeof def.execute !== "function") throw new Error(`registerTool ${def.name}: execute is not a function`);
			if (!validSchema(def.parameters))
				throw new Error(`registerTool ${def.name}: parameters must be an object schema (Type.Object)`);
			// A name another extension or relay holds is refused by relay,
			// which names both; this extension's other registrations stay.
			if (!tools.has(def.name)) tools.set(def.name, { ext, def });
			register(ext, {
				kind: "tool",
				name: def.name,
				label: def.label,
				description: def.description ?? "",
				parameters: def.parameters,
				outputSchema: def.outputSchema,
				promptSnippet: def.promptSnippet,
				promptGuidelines: def.promptGuidelines,
				exposure: def.exposure,
				namespace: def.namespace,
				annotations: def.annotations,
				defaultActive: def.defaultActive,
				executionMode: def.executionMode,
				renderCall: typeof def.renderCall === "function",
				renderResult: typeof def.renderResult === "function",
			});
		},
		registerCommand(name, opts) {
			name = String(name ?? "").replace(/^\//, "");
			if (!name || /\s/.test(name)) throw new Error(`registerCommand: invalid name ${JSON.stringify(name)}`);
			if (typeof opts?.handler !== "function") throw new Error(`registerCommand /${name}: handler is not a function`);
			if (!commands.has(name)) commands.set(name, { ext, opts });
			register(ext, { kind: "command", name, description: opts.description ?? "", completions: typeof opts.getArgumentCompletions === "function" });
		},
		registerShortcut(key, opts) {
			if (typeof opts?.handler !== "function") throw new Error(`registerShortcut ${key}: handler is not a function`);
			shortcuts.set(String(key), { ext, opts });
			register(ext, { kind: "shortcut", key: String(key), description: opts.description ?? "" });
		},
		registerFlag(name, opts) {
			name = String(name ?? "").replace(/^--/, "");
			if (!name) throw new Error("registerFlag: empty name");
			ext.flags[name] = opts ?? {};
			register(ext, { kind: "flag", name, description: opts?.description ?? "", type: opts?.type ?? "boolean", default: opts?.default });
		},
		getFlag(name) {
			name = String(name).replace(/^--/, "");
			const decl = ext.flags[name];
			if (!decl) return undefined;
			const v = state.flags?.[name];
			if (v === undefined) return decl.default;
			if ((decl.type ?? "boolean") === "boolean") return v === true || v === "true" || v === "";
			return String(v);
		},
		registerMessageRenderer(customType, fn) {
			renderers.set("message:" + customType, fn);
			register(ext, { kind: "renderer", target: "message", customType });
		},
		registerEntryRenderer(customType, fn) {
			renderers.set("entry:" + customType, fn);
			register(ext, { kind: "renderer", target: "entry", customType });
		},
		sendMessage: (message, options) => fire("sendMessage", message, options ?? {}),
		sendUserMessage: (content, options) => fire("sendUserMessage", content, options ?? {}),
		appendEntry: (customType, data) => fire("appendEntry", customType, data),
		setSessionName(name) {
			state.sessionName = name;
			fire("setSessionName", name);
		},
		getSessionName: () => state.sessionName || undefined,
		setLabel: (entryId, label) => fire("setLabel", entryId, label),
		exec: (command, args, options) => execCommand(command, args, options),
		getActiveTools: () => [...state.activeTools],
		getAllTools: () => state.allTools.map((t) => ({ ...t })),
		setActiveTools(names) {
			state.activeTools = [...names];
			fire("setActiveTools", names);
		},
		refreshTools: () => {},
		getCommands: () => state.commands.map((c) => ({ ...c })),
		getSettings: () => structuredClone(state.settings ?? {}),
		setModel: (model) => call("setModel", model),
		getThinkingLevel: () => state.thinkingLevel,
		setThinkingLevel(level) {
			state.thinkingLevel = level;
			fire("setThinkingLevel", level);
		},
		registerProvider(name, config) {
			if (typeof name !== "string" || !name) throw new Error(`registerProvider: the provider name must be a non-empty string`);
			providers.set(name, { ext, config: { ...(providers.get(name)?.config ?? {}), ...(config ?? {}) } });
			const { streamSimple, oauth, ...plain } = config ?? {};
			register(ext, {
				kind: "provider", name, config: plain, customStream: typeof streamSimple === "function",
				oauth: !!oauth && typeof oauth === "object",
			});
		},
		unregisterProvider(name) {
			if (providers.delete(name)) notify("unregister", { kind: "provider", name });
		},
		registerVirtualModel(def) {
			if (!def?.provider || !def?.id || typeof def.route !== "function")
				throw new Error("registerVirtualModel: provider, id and route are required");
			virtualModels.set(`${def.provider}/${def.id}`, { ext, def });
			const { route, ...plain } = def;
			register(ext, { kind: "virtualModel", model: plain });
		},
		registerMcpServer(name, config) {
			register(ext, { kind: "mcpServer", name, config });
		},
		events: bus,
	};
}

// ---- exec ----
function execCommand(command, args = [], options = {}) {
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let killed = false;
		const child = spawn(command, args, { cwd: options.cwd ?? state.cwd, env: options.env ? { ...process.env, ...options.env } : process.env, shell: false });
		const kill = () => {
			killed = true;
			child.kill("SIGTERM");
			setTimeout(() => child.kill("SIGKILL"), 2000).unref();
		};
		const timer = options.timeout ? setTimeout(kill, options.timeout) : undefined;
		options.signal?.addEventListener("abort", kill, { once: true });
		const cap = 16 << 20;
		child.stdout.on("data", (d) => {
			if (stdout.length < cap) stdout += d;
		});
		child.stderr.on("data", (d) => {
			if (stderr.length < cap) stderr += d;
		});
		child.on("error", (e) => {
			clearTimeout(timer);
			resolve({ stdout, stderr: stderr + e.message, code: 127, killed });
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ stdout, stderr, code: code ?? (killed ? 137 : 1), killed });
		});
	});
}

// ---- components: they live here; relay draws their lines ----
// A component is what the TUI library's are: render(width) -> lines,
// optional handleInput(data), invalidate(), dispose(). relay asks for
// renders and forwards keys by id.
const components = new Map();
let nextComponent = 0;
const keybindings = api.getKeybindings();
const footerData = { getGitBranch: () => undefined, getExtensionStatuses: () => new Map(), onBranchChange: () => () => {} };

async function mount(factory, rest) {
	const id = ++nextComponent;
	const tui = {
		requestRender: () => notify("component_render", { id }),
		get terminal() {
			return { columns: state.columns ?? 80, rows: state.rows ?? 24 };
		},
	};
	// Factories get (tui, theme, ...) as in the TUI library.
	const comp = await factory(tui, ...rest);
	components.set(id, comp);
	return id;
}

// ---- ctx ----
function makeUI(ext) {
	const ask = (method, args, fallback) =>
		state.hasUI ? request("call", { ext: ext.index, method: "ui." + method, args }) : Promise.resolve(fallback);
	const tell = (method, ...args) => notify("api", { ext: ext.index, method: "ui." + method, args });
	return {
		select: (title, options, opts) => ask("select", [title, options, strip(opts)], undefined),
		confirm: (title, message, opts) => ask("confirm", [title, message, strip(opts)], false),
		input: (title, placeholder, opts) => ask("input", [title, placeholder, strip(opts)], undefined),
		editor: (title, prefill) => ask("editor", [title, prefill], undefined),
		notify: (message, type) => tell("notify", String(message ?? ""), type ?? "info"),
		setStatus: (key, text) => tell("setStatus", key, text ?? null),
		setWorkingMessage: (text) => tell("setWorkingMessage", text ?? null),
		setWorkingIndicator: (o) => tell("setWorkingIndicator", strip(o) ?? null),
		setHiddenThinkingLabel: (label) => tell("setHiddenThinkingLabel", label ?? null),
		setWidget(key, content, opts) {
			if (typeof content === "function") {
				if (!state.hasUI) return;
				mount(content, [themeProxy]).then((id) => tell("setWidget", key, { component: id }, strip(opts)));
				return;
			}
			tell("setWidget", key, Array.isArray(content) ? content : content == null ? null : [String(content)], strip(opts));
		},
		setFooter(factory) {
			if (typeof factory !== "function") return tell("setFooter", null);
			if (state.hasUI) mount(factory, [themeProxy, footerData]).then((id) => tell("setFooter", id));
		},
		setHeader(factory) {
			if (typeof factory !== "function") return tell("setHeader", null);
			if (state.hasUI) mount(factory, [themeProxy]).then((id) => tell("setHeader", id));
		},
		setTitle: (title) => tell("setTitle", title),
		setEditorText: (text) => tell("setEditorText", text),
		getEditorText: () => uiHost.getEditorText() ?? "",
		pasteToEditor: (text) => tell("pasteToEditor", text),
		setEditorComponent: (factory) => uiHost.setEditorComponent(ext, factory),
		getEditorComponent: () => uiHost.getEditorComponent(),
		async custom(factory, options) {
			if (!state.hasUI || typeof factory !== "function") return undefined;
			let result;
			let finish;
			const finished = new Promise((r) => (finish = r));
			const id = await mount(factory, [themeProxy, keybindings, (r) => {
				result = r;
				finish();
			}]);
			// relay shows the component until done() is called.
			const shown = request("call", { ext: ext.index, method: "ui.custom", args: [id, strip(options) ?? {}] });
			await Promise.race([finished, shown.catch(() => {})]);
			notify("component_done", { id });
			await shown.catch(() => {});
			return result;
		},
		onTerminalInput: (handler) => uiHost.onTerminalInput(ext, handler),
		get theme() {
			return themeProxy;
		},
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "themes are not available to extensions yet" }),
		getToolsExpanded: () => false,
		setToolsExpanded: () => {},
	};
}

// strip drops what cannot cross the wire (signals, functions) from options.
function strip(o) {
	if (!o || typeof o !== "object") return o;
	const r = {};
	for (const [k, v] of Object.entries(o)) if (typeof v !== "function" && !(v instanceof AbortSignal)) r[k] = v;
	return r;
}

// Theme colouring is the identity until themes reach the host.
// The TUI's palette arrives as state.theme ({fg, fgEnd, bg}: token ->
// SGR sequence) before renders; without one (no terminal UI) colouring
// is the identity.
const SGR = { bold: ["\x1b[1m", "\x1b[22m"], dim: ["\x1b[2m", "\x1b[22m"], italic: ["\x1b[3m", "\x1b[23m"],
	underline: ["\x1b[4m", "\x1b[24m"], strikethrough: ["\x1b[9m", "\x1b[29m"], inverse: ["\x1b[7m", "\x1b[27m"] };
const themeProxy = new Proxy(
	{},
	{
		get(_t, p) {
			const t = state.theme;
			if (p === "fg") return (c, s) => (t?.fg?.[c] ? t.fg[c] + s + (t.fgEnd?.[c] || "\x1b[39m") : String(s));
			if (p === "bg") return (c, s) => (t?.bg?.[c] ? t.bg[c] + s + "\x1b[49m" : String(s));
			if (p in SGR) return (s) => (t ? SGR[p][0] + s + SGR[p][1] : String(s));
			if (p === "name") return t?.name;
			return undefined;
		},
	},
);

const renderItem = makeRenderItem({ renderers, tools, state, theme: themeProxy, notify });
const uiHost = makeUIHost({ request, notify, mount, components, state, theme: themeProxy, keybindings });

function readSession() {
	const file = state.sessionFile;
	if (!file) return [];
	try {
		return fs
			.readFileSync(file, "utf8")
			.split("\n")
			.filter((l) => l.trim())
			.map((l) => {
				try {
					return JSON.parse(l);
				} catch {
					return null;
				}
			})
			.filter(Boolean);
	} catch {
		return [];
	}
}

const sessionManager = {
	getCwd: () => state.cwd,
	getSessionDir: () => (state.sessionFile ? path.dirname(state.sessionFile) : ""),
	getSessionId: () => state.sessionId,
	getSessionFile: () => state.sessionFile,
	getLeafId: () => state.leafId,
	getSessionName: () => state.sessionName || undefined,
	getHeader: () => readSession().find((e) => e.type === "session") ?? null,
	getEntries: () => readSession().filter((e) => e.type !== "session"),
	getEntry: (id) => readSession().find((e) => e.id === id),
	getLeafEntry: () => readSession().find((e) => e.id === state.leafId),
	getLabel: (id) => {
		let label;
		for (const e of readSession()) if (e.type === "label" && e.targetId === id) label = e.label;
		return label || undefined;
	},
	getChildren: (id) => readSession().filter((e) => e.parentId === id),
	getBranch(fromId) {
		const byId = new Map(readSession().map((e) => [e.id, e]));
		const out = [];
		const seen = new Set();
		let cur = byId.get(fromId ?? state.leafId);
		while (cur && !seen.has(cur.id)) {
			seen.add(cur.id);
			out.push(cur);
			cur = cur.parentId ? byId.get(cur.parentId) : undefined;
		}
		return out.reverse();
	},
	getTree() {
		const entries = readSession().filter((e) => e.type !== "session");
		const nodes = new Map(entries.map((e) => [e.id, { entry: e, children: [] }]));
		const roots = [];
		for (const n of nodes.values()) {
			const p = n.entry.parentId && nodes.get(n.entry.parentId);
			if (p) p.children.push(n);
			else roots.push(n);
		}
		return roots;
	},
};

function makeCtx(ext, signal, extra) {
	const fire = (method, ...args) => notify("api", { ext: ext.index, method, args });
	const ctx = {
		ui: makeUI(ext),
		get hasUI() {
			return state.hasUI;
		},
		get mode() {
			return state.mode;
		},
		get cwd() {
			return state.cwd;
		},
		sessionManager,
		modelRegistry: makeModelRegistry(state, (method, ...args) => request("call", { ext: ext.index, method, args })),
		get model() {
			return state.model;
		},
		isIdle: () => state.idle,
		signal,
		abort: () => fire("abort"),
		hasPendingMessages: () => state.pending,
		shutdown: () => fire("shutdown"),
		getContextUsage: () => state.usage,
		compact(options) {
			request("call", { ext: ext.index, method: "compact", args: [options?.customInstructions ?? ""] }).then(
				(r) => options?.onComplete?.(r),
				(e) => options?.onError?.(e instanceof Error ? e : new Error(errText(e))),
			);
		},
		getSystemPrompt: () => state.systemPrompt,
		executeTool: (name, params) => request("call", { ext: ext.index, method: "executeTool", args: [name, params] }),
		...extra,
	};
	return ctx;
}

function commandCtx(ext, signal) {
	const call = (method, ...args) => request("call", { ext: ext.index, method, args });
	return makeCtx(ext, signal, {
		waitForIdle: () => call("waitForIdle"),
		newSession: async (o) => call("newSession", o?.parentSession ?? ""),
		fork: (entryId, o) => call("fork", entryId, o?.position ?? "before"),
		navigateTree: (targetId, o) => call("navigateTree", targetId, strip(o) ?? {}),
		switchSession: (file) => call("switchSession", file),
		reload: () => call("reload"),
	});
}

// ---- loading ----
let jiti;
function loader() {
	if (jiti) return jiti;
	const { createJiti } = require(state.jitiPath);
	const apiPath = new URL("./api/index.mjs", import.meta.url).pathname;
	const alias = {};
	for (const name of [
		"@relay-harness/coding-agent", "@relay-harness/ai", "@relay-harness/agent-core", "@relay-harness/tui",
		"@mariozechner/pi-coding-agent", "@mariozechner/pi-ai", "@mariozechner/pi-agent-core", "@mariozechner/pi-tui",
		"@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-tui",
		"typebox", "@sinclair/typebox",
	])
		alias[name] = apiPath;
	jiti = createJiti(import.meta.url, {
		alias,
		moduleCache: true,
		fsCache: state.cacheDir ? path.join(state.cacheDir, "jiti") : false,
		interopDefault: false,
	});
	return jiti;
}

// entryPoints resolves an extension path: a file, a directory with a
// package.json ("relay" / "pi" extensions, or main) or an index file.
function entryPoints(p) {
	const st = fs.statSync(p);
	if (!st.isDirectory()) return [p];
	const pkgFile = path.join(p, "package.json");
	if (fs.existsSync(pkgFile)) {
		const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
		const list = pkg.relay?.extensions ?? pkg.pi?.extensions;
		if (Array.isArray(list) && list.length) return list.map((e) => path.resolve(p, e));
		if (typeof pkg.main === "string") return [path.resolve(p, pkg.main)];
	}
	for (const f of ["index.ts", "index.mts", "index.js", "index.mjs"]) {
		if (fs.existsSync(path.join(p, f))) return [path.join(p, f)];
	}
	throw new Error("directory has no index.ts, index.js or package.json entry");
}

async function loadOne(ext) {
	const files = entryPoints(ext.path);
	for (const file of files) {
		const mod = await loader().import(file);
		const factory = typeof mod === "function" ? mod : mod?.default;
		if (typeof factory !== "function") throw new Error(`${path.basename(file)} has no default export function`);
		await factory(makeAPI(ext));
	}
}

function forget(ext) {
	for (const [id, h] of handlers) if (h.ext === ext) handlers.delete(id);
	for (const m of [tools, commands, shortcuts, providers, virtualModels]) for (const [k, v] of m) if (v.ext === ext) m.delete(k);
}

// Calls that arrive while a (re)started host is still loading wait for
// the load instead of failing on a name not registered yet.
let initDone = Promise.resolve();

async function init(p) {
	let finish;
	initDone = new Promise((r) => (finish = r));
	try {
		return await initInner(p);
	} finally {
		finish();
	}
}

async function initInner(p) {
	merge(p.state);
	state.jitiPath = p.jitiPath;
	state.cacheDir = p.cacheDir;
	const results = [];
	// A later init (project extensions once the project is trusted) adds
	// to the extensions already loaded: indexes continue.
	const base = exts.length;
	for (const [i, file] of (p.extensions ?? []).entries()) {
		const index = base + i;
		const ext = { index, path: file, loaded: false, pending: [], flags: {} };
		exts.push(ext);
		try {
			await loadOne(ext);
			ext.loaded = true;
			// Registrations reach relay only once the factory finished, so a
			// failed load leaves nothing half-registered behind.
			notify("register", { ext: index, items: ext.pending });
			ext.pending = [];
			results.push({ path: file });
		} catch (e) {
			forget(ext);
			ext.failed = true;
			results.push({ path: file, error: errOut(e) });
		}
	}
	return { extensions: results };
}

// ---- relay -> host requests ----
async function withAbort(id, fn) {
	const ac = new AbortController();
	controllers.set(id, ac);
	try {
		return await fn(ac.signal);
	} finally {
		controllers.delete(id);
	}
}

const methods = {
	init,
	ping: () => "pong",
	async event(p, id) {
		if (!handlers.has(p.handler)) await initDone;
		const h = handlers.get(p.handler);
		if (!h) return { result: null };
		merge(p.state);
		const data = { type: h.event, ...(p.data ?? {}) };
		return withAbort(id, async (signal) => {
			const r = await h.fn(data, makeCtx(h.ext, signal));
			const res = { result: r === undefined ? null : r };
			if (h.event === "tool_call") res.input = data.input;
			if (h.event === "before_provider_headers") res.headers = data.headers;
			return res;
		});
	},
	async tool(p, id) {
		if (!tools.has(p.name)) await initDone;
		const t = tools.get(p.name);
		if (!t) throw new Error(`tool ${p.name} is not registered`);
		merge(p.state);
		return withAbort(id, async (signal) => {
			let params = p.params ?? {};
			if (typeof t.def.prepareArguments === "function") params = t.def.prepareArguments(params);
			const onUpdate = (partial) => notify("tool_update", { req: id, partial });
			const r = await t.def.execute(p.toolCallId, params, signal, onUpdate, makeCtx(t.ext, signal));
			return r ?? { content: [] };
		});
	},
	async command(p, id) {
		if (!commands.has(p.name)) await initDone;
		const c = commands.get(p.name);
		if (!c) throw new Error(`command /${p.name} is not registered`);
		merge(p.state);
		return withAbort(id, async (signal) => {
			await c.opts.handler(p.args ?? "", commandCtx(c.ext, signal));
			return null;
		});
	},
	async complete(p) {
		const c = commands.get(p.name);
		if (!c || typeof c.opts.getArgumentCompletions !== "function") return [];
		return (await c.opts.getArgumentCompletions(p.prefix ?? "")) ?? [];
	},
	async shortcut(p, id) {
		const s = shortcuts.get(p.key);
		if (!s) throw new Error(`shortcut ${p.key} is not registered`);
		merge(p.state);
		return withAbort(id, async (signal) => {
			await s.opts.handler(makeCtx(s.ext, signal));
			return null;
		});
	},
	async route(p, id) {
		const v = virtualModels.get(p.model);
		if (!v) throw new Error(`virtual model ${p.model} is not registered`);
		merge(p.state);
		return withAbort(id, async (signal) => (await v.def.route({ ...p.request, signal }, makeCtx(v.ext, signal))) ?? null);
	},
	renderItem: (p) => renderItem(p),
	terminalInput: (p) => uiHost.terminalInput(p),
	setEditorText: (p) => uiHost.setEditorText(p),
	async stream(p, id) {
		if (!providers.has(p.provider)) await initDone;
		const entry = providers.get(p.provider);
		if (typeof entry?.config?.streamSimple !== "function") throw new Error(`provider ${p.provider} has no streamSimple`);
		merge(p.state);
		return withAbort(id, (signal) => runStream(entry.config, p, signal, (ev) => notify("stream_event", { req: id, ev })));
	},
	render(p) {
		const c = components.get(p.id);
		if (!c) return [];
		const lines = c.render(p.width ?? 80);
		return Array.isArray(lines) ? lines.map(String) : [];
	},
	input(p) {
		const c = components.get(p.id);
		if (!c) return null;
		c.handleInput?.(p.data);
		// As the TUI library does: a key may change what the component
		// shows, whether or not it asks for a render itself.
		notify("component_render", { id: p.id });
		return null;
	},
	focus(p) {
		const c = components.get(p.id);
		if (c && "focused" in c) c.focused = !!p.focused;
		return null;
	},
	dispose(p) {
		const c = components.get(p.id);
		components.delete(p.id);
		c?.dispose?.();
		return null;
	},
	state(p) {
		merge(p);
		return null;
	},
	emitBus(p) {
		bus.emit(p.channel, p.data);
		return null;
	},
	cancel(p) {
		controllers.get(p.req)?.abort();
		return null;
	},
	shutdown() {
		setImmediate(() => process.exit(0));
		return null;
	},
};

async function handle(m) {
	const fn = methods[m.method] ?? (m.id === undefined ? libHandlers.get(m.method) : undefined);
	if (m.id === undefined) {
		// notification
		try {
			await fn?.(m.params ?? {});
		} catch (e) {
			notify("error", { ext: "", event: m.method, message: errText(e) });
		}
		return;
	}
	if (!fn) return send({ id: m.id, error: { message: `unknown method ${m.method}` } });
	try {
		send({ id: m.id, result: (await fn(m.params ?? {}, m.id)) ?? null });
	} catch (e) {
		send({ id: m.id, error: errOut(e) });
	}
}

const rl = readline.createInterface({ input, crlfDelay: Infinity });
rl.on("line", (line) => {
	let m;
	try {
		m = JSON.parse(line);
	} catch {
		return;
	}
	// Not a message (null, a number, an array): a throw here would lose
	// the lines after it in the same chunk.
	if (!m || typeof m !== "object" || Array.isArray(m)) return;
	if (m.method) {
		handle(m);
		return;
	}
	const w = waiting.get(m.id);
	if (!w) return;
	waiting.delete(m.id);
	if (m.error) w.reject(new Error(m.error.message ?? "relay error"));
	else w.resolve(m.result);
});
// relay closed the pipe (exit, crash): nothing more to do.
rl.on("close", () => process.exit(0));

// An extension's stray rejection or exception is reported, never fatal.
process.on("unhandledRejection", (e) => notify("error", { ext: "", event: "unhandledRejection", message: errText(e) }));
process.on("uncaughtException", (e) => notify("error", { ext: "", event: "uncaughtException", message: errText(e) }));
