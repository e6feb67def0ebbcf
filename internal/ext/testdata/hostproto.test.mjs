// The extension host's side of the protocol, driven over its two fds as
// relay drives it: requests and their replies, registrations, handler
// and tool calls, cancellation, and hostile lines. Run by
// TestHostProtocolNode (host_node_test.go) with RELAY_TEST_HOST (the
// host.mjs to run) and RELAY_TEST_JITI (an installed jiti).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

const hostScript = process.env.RELAY_TEST_HOST;
const jitiPath = process.env.RELAY_TEST_JITI;
const WAIT = 60_000; // a loaded CI machine can be slow to load jiti

class Host {
	constructor() {
		this.child = spawn(process.execPath, [hostScript], { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
		this.toHost = this.child.stdio[3];
		this.messages = [];
		this.waiters = [];
		this.stderr = "";
		this.child.stderr.on("data", (d) => (this.stderr += d));
		this.child.stdout.on("data", () => {});
		readline.createInterface({ input: this.child.stdio[4] }).on("line", (line) => {
			const m = JSON.parse(line); // the host must only ever write JSON lines
			this.messages.push(m);
			for (const w of [...this.waiters]) w();
		});
		this.exited = new Promise((r) => this.child.on("exit", (code) => r(code)));
		this.nextId = 1000;
	}
	raw(line) {
		this.toHost.write(line + "\n");
	}
	send(m) {
		this.raw(JSON.stringify(m));
	}
	// next waits for (and removes) the first message pred accepts.
	next(pred, what) {
		return new Promise((resolve, reject) => {
			const check = () => {
				const i = this.messages.findIndex(pred);
				if (i < 0) return false;
				const [m] = this.messages.splice(i, 1);
				this.waiters = this.waiters.filter((w) => w !== check);
				clearTimeout(timer);
				resolve(m);
				return true;
			};
			const timer = setTimeout(() => {
				this.waiters = this.waiters.filter((w) => w !== check);
				reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`));
			}, WAIT);
			if (!check()) this.waiters.push(check);
		});
	}
	async request(method, params) {
		const id = ++this.nextId;
		this.send({ id, method, params });
		return this.next((m) => m.id === id && !m.method, `the reply to ${method} #${id}`);
	}
	stop() {
		this.child.kill();
		return this.exited;
	}
}

let dir;
let host;
let registered; // items of the good extension's register notification

before(async () => {
	assert.ok(hostScript && jitiPath, "RELAY_TEST_HOST and RELAY_TEST_JITI must be set");
	dir = fs.mkdtempSync(path.join(os.tmpdir(), "relay-hostproto-"));
	fs.writeFileSync(
		path.join(dir, "good.mjs"),
		`export default function (relay) {
	relay.on("tool_call", (e) => { e.input.seen = true; return e.toolName === "bash" ? { block: true, reason: "no bash" } : undefined; });
	relay.on("input", () => { throw new Error("handler exploded"); });
	relay.on("project_trust", (e) => ({ trusted: "yes", remember: e.cwd === "/remember" }));
	relay.on("agent_before_settle", (e) => ({ entries: [...e.entries, { type: "custom", customType: "seen" }], continue: !e.continue }));
	relay.on("context", (e, ctx) => new Promise((resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted by relay")))));
	relay.on("context_with_system", (e) => ({ messages: e.messages.slice(0, 1) }));
	relay.registerTool({ name: "echo", description: "echoes", parameters: { type: "object", properties: {} },
		async execute(id, params) { return { content: [{ type: "text", text: id + ":" + JSON.stringify(params) }] }; } });
	relay.registerTool({ name: "boom", description: "fails", parameters: { type: "object" }, async execute() { throw new Error("tool failed"); } });
}
`,
	);
	fs.writeFileSync(path.join(dir, "nodefault.mjs"), "export const x = 1;\n");
	fs.writeFileSync(path.join(dir, "syntax.mjs"), "export default function ( {\n");
	fs.writeFileSync(path.join(dir, "later.mjs"), `export default function (relay) { relay.registerCommand("later", { handler: async () => {} }); }\n`);
	host = new Host();
	const init = await host.request("init", {
		extensions: [path.join(dir, "good.mjs"), path.join(dir, "nodefault.mjs"), path.join(dir, "syntax.mjs")],
		jitiPath,
		cacheDir: path.join(dir, "cache"),
		state: { cwd: dir, mode: "print", hasUI: false },
	});
	assert.equal(init.error, undefined, JSON.stringify(init.error));
	const results = init.result.extensions;
	assert.equal(results.length, 3);
	assert.equal(results[0].error, undefined);
	assert.match(results[1].error.message, /no default export/);
	assert.ok(results[2].error.message.length > 0, "a syntax error is reported");
	const reg = await host.next((m) => m.method === "register" && m.params.ext === 0, "the good extension's registrations");
	registered = reg.params.items;
});

after(async () => {
	await host?.stop();
	fs.rmSync(dir, { recursive: true, force: true });
});

const handlerOf = (event) => registered.find((i) => i.kind === "handler" && i.event === event).id;

test("registrations of a loaded extension only; a failed one registers nothing", () => {
	const kinds = registered.map((i) => (i.kind === "handler" ? i.event : `${i.kind}:${i.name}`));
	assert.deepEqual(kinds, ["tool_call", "input", "project_trust", "agent_before_settle", "context", "context_with_system", "tool:echo", "tool:boom"]);
	assert.equal(host.messages.filter((m) => m.method === "register").length, 0);
});

test("ping", async () => {
	assert.equal((await host.request("ping", {})).result, "pong");
});

test("a handler's result and its mutated input come back", async () => {
	const r = await host.request("event", { handler: handlerOf("tool_call"), data: { toolName: "bash", toolCallId: "c1", input: { command: "ls" } } });
	assert.deepEqual(r.result, { result: { block: true, reason: "no bash" }, input: { command: "ls", seen: true } });
	const none = await host.request("event", { handler: handlerOf("tool_call"), data: { toolName: "read", toolCallId: "c2", input: {} } });
	assert.equal(none.result.result, null);
});

test("a handler that throws answers an error naming it, and the host goes on", async () => {
	const r = await host.request("event", { handler: handlerOf("input"), data: { text: "hi", source: "rpc" } });
	assert.equal(r.result, undefined);
	assert.equal(r.error.message, "handler exploded");
	assert.match(r.error.stack, /handler exploded/);
	assert.equal((await host.request("ping", {})).result, "pong");
});

test("project_trust, agent_before_settle and context_with_system answer their result shapes", async () => {
	const trust = await host.request("event", { handler: handlerOf("project_trust"), data: { cwd: "/remember" } });
	assert.deepEqual(trust.result.result, { trusted: "yes", remember: true });
	const settle = await host.request("event", {
		handler: handlerOf("agent_before_settle"),
		data: { entries: [{ type: "custom", customType: "first" }], continue: true, outcome: "completed", context: { contextMessages: [] } },
	});
	assert.deepEqual(settle.result.result, { entries: [{ type: "custom", customType: "first" }, { type: "custom", customType: "seen" }], continue: false });
	const sys = await host.request("event", {
		handler: handlerOf("context_with_system"),
		data: { messages: [{ role: "system", content: "p" }, { role: "user", content: "u", timestamp: 0 }] },
	});
	assert.deepEqual(sys.result.result, { messages: [{ role: "system", content: "p" }] });
});

test("cancel aborts a running handler through ctx.signal", async () => {
	const id = ++host.nextId;
	host.send({ id, method: "event", params: { handler: handlerOf("context"), data: { messages: [] } } });
	host.send({ method: "cancel", params: { req: id } });
	const r = await host.next((m) => m.id === id && !m.method, "the cancelled handler's reply");
	assert.equal(r.error.message, "aborted by relay");
});

test("tools: a result, a thrown error, an unknown name", async () => {
	const ok = await host.request("tool", { name: "echo", toolCallId: "t1", params: { a: 1 } });
	assert.deepEqual(ok.result.content, [{ type: "text", text: 't1:{"a":1}' }]);
	const boom = await host.request("tool", { name: "boom", toolCallId: "t2", params: {} });
	assert.equal(boom.error.message, "tool failed");
	const nope = await host.request("tool", { name: "nope", toolCallId: "t3", params: {} });
	assert.equal(nope.error.message, "tool nope is not registered");
});

test("an unknown method is an error; an unknown notification is ignored", async () => {
	const r = await host.request("no_such_method", {});
	assert.equal(r.error.message, "unknown method no_such_method");
	host.send({ method: "no_such_notification", params: {} });
	assert.equal((await host.request("ping", {})).result, "pong");
});

test("hostile lines: not JSON, not an object, a reply nobody asked for, an unknown handler", async () => {
	for (const line of ["{not json", "", "null", "42", '"text"', "[1,2]", '{"id": 99999, "result": 1}', '{"id": 99998, "error": {}}']) host.raw(line);
	assert.equal((await host.request("ping", {})).result, "pong");
	const gone = await host.request("event", { handler: 123456, data: {} });
	assert.deepEqual(gone.result, { result: null });
	// None of it made the host report an error of its own.
	assert.deepEqual(
		host.messages.filter((m) => m.method === "error"),
		[],
	);
});

test("a second init adds extensions after the loaded ones (indexes continue)", async () => {
	const r = await host.request("init", { extensions: [path.join(dir, "later.mjs")], jitiPath, cacheDir: path.join(dir, "cache"), state: {} });
	assert.deepEqual(r.result.extensions, [{ path: path.join(dir, "later.mjs") }]);
	const reg = await host.next((m) => m.method === "register", "the later extension's registrations");
	assert.equal(reg.params.ext, 3);
	assert.deepEqual(reg.params.items.map((i) => i.name), ["later"]);
});

test("shutdown ends the host", async () => {
	const r = await host.request("shutdown", {});
	assert.equal(r.result, null);
	assert.equal(await host.exited, 0);
});
