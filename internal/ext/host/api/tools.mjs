// The built-in tool factories of @relay-harness/coding-agent
// (createReadTool, createBashTool, ...). A factory's tool carries the
// built-in's declaration (relay sends them when the host starts, so an
// extension can read createReadTool(cwd).parameters while it loads) and
// its execute runs relay's BUILT-IN implementation through a request of
// its own: never the tool registered under that name, so an extension that
// overrides read with a wrapper calling the original does not call itself.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const host = () => globalThis.__relayHost ?? {};

// Shared by every copy of this module (jiti may load a second one):
// partial results relay streams, by request id.
const lib = (globalThis.__relayLib ??= { updates: new Map(), listening: false });

function listen() {
	const h = host();
	if (lib.listening || !h.onNotification) return;
	lib.listening = true;
	h.onNotification("builtin_update", (p) => {
		try {
			lib.updates.get(p?.req)?.(p.partial);
		} catch (e) {
			h.reportError?.("onUpdate", e);
		}
	});
}

// libRequest sends one library request; signal's abort cancels it on
// relay's side, onUpdate receives what relay streams for it.
export async function libRequest(method, params, signal, onUpdate) {
	const h = host();
	if (typeof h.request !== "function") throw new Error(`${method}: only available inside relay's extension host`);
	if (signal?.aborted) throw new Error("Operation aborted");
	listen();
	let id;
	const onAbort = () => id !== undefined && h.notify("lib_cancel", { req: id });
	const p = h.request(method, params, (rid) => {
		id = rid;
		if (typeof onUpdate === "function") lib.updates.set(rid, onUpdate);
	});
	signal?.addEventListener?.("abort", onAbort, { once: true });
	try {
		return await p;
	} finally {
		lib.updates.delete(id);
		signal?.removeEventListener?.("abort", onAbort);
	}
}

function builtinSpec(name) {
	const s = host().state?.builtinTools?.find((t) => t.name === name);
	if (!s) throw new Error(`built-in tool ${name} is not available in this relay`);
	return s;
}

function checkCwd(factory, cwd) {
	if (typeof cwd !== "string" || cwd === "") throw new Error(`${factory}: cwd must be a directory path`);
	return path.resolve(cwd);
}

// Options relay cannot honour yet are refused when the tool runs, never
// silently dropped (a remote ReadOperations must not read local files).
function unsupported(factory, options, supported) {
	for (const k of Object.keys(options ?? {})) {
		if (options[k] !== undefined && !supported.includes(k)) return `${factory}: option ${k} is not supported by relay yet`;
	}
	return undefined;
}

function makeTool(name, factory, cwd, options, supported, definition) {
	const spec = builtinSpec(name);
	cwd = checkCwd(factory, cwd);
	const refused = unsupported(factory, options, supported);
	const tool = {
		name: spec.name,
		label: spec.label ?? spec.name,
		description: spec.description,
		parameters: structuredClone(spec.parameters),
		async execute(toolCallId, params, signal, onUpdate) {
			if (refused) throw new Error(refused);
			const run = (p, c = cwd) => libRequest("builtin_tool", { name, cwd: c, toolCallId: toolCallId ?? "", params: p }, signal, onUpdate);
			if (options?.operations) return staged(name, factory, options.operations, cwd, params ?? {}, run);
			return run(params ?? {});
		},
	};
	if (definition) {
		if (spec.promptSnippet) tool.promptSnippet = spec.promptSnippet;
		if (spec.promptGuidelines?.length) tool.promptGuidelines = [...spec.promptGuidelines];
	}
	return tool;
}

// ---- read, write, edit with operations: staged through relay's built-in ----

// resolve is the absolute path the built-ins would use for p.
function resolve(cwd, p) {
	p = String(p ?? "").replace(/^@/, "");
	if (p === "~" || p.startsWith("~/")) p = path.join(os.homedir(), p.slice(1));
	return path.resolve(cwd, p || ".");
}

function replaceAll(v, from, to) {
	if (typeof v === "string") return v.split(from).join(to);
	if (Array.isArray(v)) return v.map((x) => replaceAll(x, from, to));
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceAll(x, from, to)]));
	return v;
}

const STAGED_OPS = { read: ["readFile", "access"], write: ["writeFile", "mkdir"], edit: ["readFile", "writeFile", "access"] };

// staged runs relay's built-in read, write or edit on a private copy of
// the file the operations reach (a remote machine, a sandbox): the copy is
// read through them first, the built-in works on it (its limits, its
// messages, its matching), and what it wrote goes back through them. The
// copy's path never shows: results name the path the model gave.
async function staged(name, factory, ops, cwd, params, run) {
	for (const fn of STAGED_OPS[name] ?? []) {
		if (typeof ops[fn] !== "function") throw new Error(`${factory}: operations.${fn} is not a function`);
	}
	const target = resolve(cwd, params.path);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "relay-ops-"));
	const copy = path.join(dir, path.basename(target) || "file");
	try {
		let exists = false;
		if (name !== "write") {
			try {
				await ops.access(target);
				exists = true;
			} catch {}
			if (exists) fs.writeFileSync(copy, Buffer.from(await ops.readFile(target)));
		}
		const r = await run({ ...params, path: copy }, dir);
		const shown = replaceAll(r, copy, String(params.path ?? ""));
		if (!r?.isError && name !== "read") {
			if (name === "write") await ops.mkdir(path.dirname(target));
			await ops.writeFile(target, fs.readFileSync(copy, "utf8"));
		}
		return shown;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// ---- bash: spawnHook, commandPrefix, shellPath; operations run here ----

const shq = (v) => `'${String(v).replace(/'/g, "'\\''")}'`;

// envPrefix is the shell lines that turn the host's environment into the
// one a spawnHook returned (relay's bash starts from its own environment).
function envPrefix(env) {
	const lines = [];
	for (const [k, v] of Object.entries(env ?? {})) {
		if (v !== undefined && process.env[k] !== v && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) lines.push(`export ${k}=${shq(v)}`);
	}
	for (const k of Object.keys(process.env)) if (!(k in (env ?? {})) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) lines.push(`unset ${k}`);
	return lines.length ? `${lines.join("\n")}\n` : "";
}

function makeBash(factory, cwd, options, definition) {
	const tool = makeTool("bash", factory, cwd, options, ["spawnHook", "commandPrefix", "shellPath", "operations"], definition);
	const base = checkCwd(factory, cwd);
	tool.execute = async (toolCallId, params, signal, onUpdate) => {
		let command = String(params?.command ?? "");
		if (options?.commandPrefix) command = `${options.commandPrefix}\n${command}`;
		let runCwd = base;
		let env = { ...process.env };
		if (typeof options?.spawnHook === "function") {
			const r = options.spawnHook({ command, cwd: runCwd, env }) ?? {};
			command = r.command ?? command;
			runCwd = r.cwd ?? runCwd;
			env = r.env ?? env;
		}
		if (options?.operations) {
			return runOperations(options.operations, command, runCwd, env, params?.timeout, signal, onUpdate);
		}
		const p = { ...(params ?? {}), command: envPrefix(env) + command };
		return libRequest(
			"builtin_tool",
			{ name: "bash", cwd: runCwd, toolCallId: toolCallId ?? "", params: p, shellPath: options?.shellPath ?? "" },
			signal,
			onUpdate,
		);
	};
	return tool;
}

const MAX_LINES = 2000;
const MAX_BYTES = 50 * 1024;

// tailOf keeps the last MAX_LINES lines / MAX_BYTES bytes of text.
function tailOf(text) {
	const lines = text.split("\n");
	const kept = [];
	let bytes = 0;
	let by = null;
	for (let i = lines.length - 1; i >= 0; i--) {
		if (kept.length >= MAX_LINES) {
			by = "lines";
			break;
		}
		const b = Buffer.byteLength(lines[i]) + (kept.length ? 1 : 0);
		if (bytes + b > MAX_BYTES) {
			by = "bytes";
			break;
		}
		kept.unshift(lines[i]);
		bytes += b;
	}
	return { content: kept.join("\n"), truncated: by !== null, truncatedBy: by, totalLines: lines.length, outputLines: kept.length };
}

// runOperations runs a BashOperations.exec (a remote shell, a sandbox) and
// shapes its output as the built-in bash does: the tail of the output, the
// whole of it in a temp file when cut, the exit status appended.
async function runOperations(ops, command, cwd, env, timeout, signal, onUpdate) {
	if (typeof ops.exec !== "function") throw new Error("createBashTool: operations.exec is not a function");
	const chunks = [];
	let size = 0;
	let newlines = 0;
	let file;
	let fd;
	const keep = 4 * MAX_BYTES;
	let last = 0;
	const text = () => Buffer.concat(chunks).toString("utf8");
	const onData = (d) => {
		const b = Buffer.isBuffer(d) ? d : Buffer.from(String(d));
		size += b.length;
		for (const c of b) if (c === 10) newlines++;
		if (size > MAX_BYTES && fd === undefined) {
			file = path.join(os.tmpdir(), `relay-bash-${process.pid}-${Date.now()}.log`);
			fd = fs.openSync(file, "w");
			for (const c of chunks) fs.writeSync(fd, c);
		}
		if (fd !== undefined) fs.writeSync(fd, b);
		chunks.push(b);
		let held = chunks.reduce((n, c) => n + c.length, 0);
		while (held > keep && chunks.length > 1) held -= chunks.shift().length;
		const now = Date.now();
		if (typeof onUpdate === "function" && now - last > 100) {
			last = now;
			onUpdate({ content: [{ type: "text", text: tailOf(text()).content }], details: {} });
		}
	};
	let exitCode;
	let failure;
	try {
		({ exitCode } = await ops.exec(command, cwd, { onData, signal, timeout, env }));
	} catch (e) {
		failure = e;
	} finally {
		if (fd !== undefined) fs.closeSync(fd);
	}
	const t = tailOf(text());
	if (t.truncated && file === undefined) {
		// Cut by lines under the byte limit: everything is still held.
		file = path.join(os.tmpdir(), `relay-bash-${process.pid}-${Date.now()}.log`);
		fs.writeFileSync(file, Buffer.concat(chunks));
	}
	let out = t.content;
	let details;
	if (t.truncated || file) {
		const total = Math.max(t.totalLines, newlines + 1);
		t.totalLines = total;
		t.truncated = true;
		// As the built-in counts: a trailing newline's empty last element is
		// not a line shown.
		const start = total - (t.outputLines - (t.content.endsWith("\n") ? 1 : 0)) + 1;
		out += `\n\n[Showing lines ${start}-${total} of ${total}${t.truncatedBy === "bytes" ? " (50.0KB limit)" : ""}. Full output: ${file}]`;
		details = { truncation: t, fullOutputPath: file };
	}
	const status = (s) => (out ? `${out}\n\n${s}` : s);
	if (failure) {
		const msg = String(failure?.message ?? failure);
		const why = signal?.aborted ? "Command aborted" : msg.startsWith("timeout:") ? `Command timed out after ${timeout} seconds` : msg;
		return { content: [{ type: "text", text: status(why) }], details, isError: true };
	}
	if (exitCode !== 0 && exitCode != null) {
		return { content: [{ type: "text", text: status(`Command exited with code ${exitCode}`) }], details, isError: true };
	}
	return { content: [{ type: "text", text: out || "(no output)" }], details };
}

// ---- the factories ----
// Options each factory takes; read's autoResizeImages is accepted and
// relay's images.autoResize setting decides.
const simple = {
	read: ["createReadTool", ["autoResizeImages", "operations"]],
	edit: ["createEditTool", ["operations"]],
	write: ["createWriteTool", ["operations"]],
	grep: ["createGrepTool", []],
	find: ["createFindTool", []],
	ls: ["createLsTool", []],
};

function factory(name, definition) {
	if (name === "bash") return (cwd, options) => makeBash(definition ? "createBashToolDefinition" : "createBashTool", cwd, options, definition);
	const [fn, supported] = simple[name];
	const label = definition ? `${fn}Definition` : fn;
	return (cwd, options) => makeTool(name, label, cwd, options, supported, definition);
}

export const createReadTool = factory("read", false);
export const createBashTool = factory("bash", false);
export const createEditTool = factory("edit", false);
export const createWriteTool = factory("write", false);
export const createGrepTool = factory("grep", false);
export const createFindTool = factory("find", false);
export const createLsTool = factory("ls", false);
export const createReadToolDefinition = factory("read", true);
export const createBashToolDefinition = factory("bash", true);
export const createEditToolDefinition = factory("edit", true);
export const createWriteToolDefinition = factory("write", true);
export const createGrepToolDefinition = factory("grep", true);
export const createFindToolDefinition = factory("find", true);
export const createLsToolDefinition = factory("ls", true);

const ALL = ["read", "bash", "edit", "write", "grep", "find", "ls"];
const byName = { read: createReadTool, bash: createBashTool, edit: createEditTool, write: createWriteTool, grep: createGrepTool, find: createFindTool, ls: createLsTool };
const defByName = {
	read: createReadToolDefinition, bash: createBashToolDefinition, edit: createEditToolDefinition, write: createWriteToolDefinition,
	grep: createGrepToolDefinition, find: createFindToolDefinition, ls: createLsToolDefinition,
};

// ToolsOptions: { read?: ReadToolOptions, bash?: BashToolOptions, ... }.
export function createTool(name, cwd, options) {
	if (!byName[name]) throw new Error(`createTool: unknown built-in tool ${JSON.stringify(name)}`);
	return byName[name](cwd, options?.[name]);
}
export function createToolDefinition(name, cwd, options) {
	if (!defByName[name]) throw new Error(`createToolDefinition: unknown built-in tool ${JSON.stringify(name)}`);
	return defByName[name](cwd, options?.[name]);
}
export const createCodingTools = (cwd, o) => ["read", "bash", "edit", "write"].map((n) => createTool(n, cwd, o));
export const createReadOnlyTools = (cwd, o) => ["read", "grep", "find", "ls"].map((n) => createTool(n, cwd, o));
export const createCodingToolDefinitions = (cwd, o) => ["read", "bash", "edit", "write"].map((n) => createToolDefinition(n, cwd, o));
export const createReadOnlyToolDefinitions = (cwd, o) => ["read", "grep", "find", "ls"].map((n) => createToolDefinition(n, cwd, o));
export const createAllTools = (cwd, o) => Object.fromEntries(ALL.map((n) => [n, createTool(n, cwd, o)]));
export const createAllToolDefinitions = (cwd, o) => Object.fromEntries(ALL.map((n) => [n, createToolDefinition(n, cwd, o)]));
// createBuiltInTools: every built-in by name, as extensions build it.
export const createBuiltInTools = createAllTools;

// createLocalBashOperations runs commands with the local shell, for
// extensions that wrap the operations (a sandbox that falls back to them).
export function createLocalBashOperations(options) {
	return {
		exec(command, cwd, { onData, signal, timeout, env } = {}) {
			return new Promise((resolve, reject) => {
				const shell = options?.shellPath ?? process.env.SHELL ?? "/bin/sh";
				const child = spawn(shell, ["-c", command], { cwd, env: env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
				let timedOut = false;
				// The whole process group: a command's children end with it.
				const kill = () => {
					try {
						process.kill(-child.pid, "SIGKILL");
					} catch {
						child.kill("SIGKILL");
					}
				};
				const timer = timeout ? setTimeout(() => ((timedOut = true), kill()), timeout * 1000) : undefined;
				child.stdout.on("data", (d) => onData?.(d));
				child.stderr.on("data", (d) => onData?.(d));
				signal?.addEventListener?.("abort", kill, { once: true });
				child.on("error", (e) => {
					clearTimeout(timer);
					reject(e);
				});
				child.on("close", (code) => {
					clearTimeout(timer);
					signal?.removeEventListener?.("abort", kill);
					if (signal?.aborted) reject(new Error("aborted"));
					else if (timedOut) reject(new Error(`timeout:${timeout}`));
					else resolve({ exitCode: code });
				});
			});
		},
	};
}
