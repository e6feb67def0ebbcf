// The host's API module on its own (node testdata/api_node_test.mjs):
// components rendered to lines at known widths, keys, and the pure
// helpers. Run by TestAPIModuleNodeSide; exits 1 naming each failure.
import assert from "node:assert/strict";
import * as api from "../host/api/index.mjs";

const strip = (s) => s.replace(/\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b_[^\x07]*\x07/g, "");
const tui = { renders: 0, requestRender() { this.renders++; } };
const failures = [];
const tests = [];
const test = (name, fn) => tests.push([name, fn]);

function fits(lines, width, what) {
	assert.ok(Array.isArray(lines), `${what}: render returned ${typeof lines}`);
	for (const l of lines) assert.ok(api.visibleWidth(l) <= width, `${what} at ${width}: ${JSON.stringify(l)} is ${api.visibleWidth(l)} wide`);
}

test("widths ignore escapes and the cursor marker", () => {
	assert.equal(api.visibleWidth(`ab${api.CURSOR_MARKER}\x1b[31mc\x1b[0m`), 3);
	assert.equal(api.visibleWidth("日本"), 4);
	assert.equal(strip(api.truncateToWidth("\x1b[1mhello world\x1b[0m", 8)), "hello...");
	assert.equal(api.sliceByColumn("\x1b[31mabcdef", 2, 2), "\x1b[31mcd");
});

test("wrapping keeps colours on every line", () => {
	const lines = api.wrapTextWithAnsi("\x1b[31mred red red\x1b[0m plain", 7);
	assert.deepEqual(lines.map(strip), ["red red", "red", "plain"]);
	assert.ok(lines[1].startsWith("\x1b[31m"), JSON.stringify(lines));
	assert.ok(!lines[2].includes("\x1b[31m"), JSON.stringify(lines));
	assert.deepEqual(api.wrapTextWithAnsi("abcdefghij", 4).map(strip), ["abcd", "efgh", "ij"]);
});

test("keys: Key ids, legacy, Kitty and modifyOtherKeys input", () => {
	assert.equal(api.Key.ctrlAlt("p"), "ctrl+alt+p");
	assert.equal(api.Key.ctrlShift("u"), "ctrl+shift+u");
	assert.equal(api.Key.shift("tab"), "shift+tab");
	assert.equal(api.Key.escape, "escape");
	const cases = [
		["\x03", "ctrl+c"], ["\r", "enter"], ["\x1b", "escape"], ["\x1b[A", "up"], ["\x1bOB", "down"], ["\x1b[Z", "shift+tab"],
		["\x1b[1;5C", "ctrl+right"], ["\x1b[3~", "delete"], ["\x1b[5;2~", "shift+pageUp"], ["\x1bx", "alt+x"], ["\x1b\x10", "ctrl+alt+p"],
		["\x1b[112;7u", "ctrl+alt+p"], ["\x1b[117;6u", "ctrl+shift+u"], ["\x1b[13;2u", "shift+enter"], ["\x1b[27;5;97~", "ctrl+a"], ["a", "a"],
	];
	for (const [data, id] of cases) assert.equal(api.parseKey(data), id, JSON.stringify(data));
	assert.ok(api.matchesKey("\x1b[112;7u", api.Key.ctrlAlt("p")));
	assert.ok(api.matchesKey("\x1b[117;6u", "shift+ctrl+u"));
	assert.ok(api.matchesKey("W", api.Key.shift("w")));
	assert.ok(!api.matchesKey("w", api.Key.shift("w")));
	assert.ok(api.matchesKey("\x1b[5~", "pageUp"));
	assert.ok(api.isKeyRelease("\x1b[97;1:3u"));
	assert.ok(!api.isKeyRelease("\x1b[97u"));
	assert.equal(api.decodeKittyPrintable("\x1b[97;2:1u"), "a");
	assert.ok(api.getKeybindings().matches("\x1b", "app.interrupt"));
	assert.ok(api.getKeybindings().matches("\x1b[B", "tui.select.down"));
});

test("fuzzyFilter keeps matching items, best first", () => {
	const items = ["read file", "grep", "find readme", "write"];
	assert.deepEqual(api.fuzzyFilter(items, "rd", (s) => s), ["read file", "find readme"]);
	assert.deepEqual(api.fuzzyFilter(items, "wr te", (s) => s), ["write"]);
	assert.equal(api.fuzzyMatch("xyz", "abc").matches, false);
});

test("Text and Box paint their background to the full width", () => {
	const bg = (s) => `<${s}>`;
	assert.deepEqual(new api.Text("hi", 1, 0, bg).render(6), ["< hi   >"]);
	const box = new api.Box(1, 0, bg);
	box.addChild(new api.Text("x", 0, 0));
	assert.deepEqual(box.render(4), ["< x  >"]);
});

test("SelectList scrolls, selects and cancels", () => {
	const items = ["alpha", "beta", "gamma", "delta", "epsilon"].map((v) => ({ value: v, label: v }));
	const list = new api.SelectList(items, 3, {});
	assert.deepEqual(list.render(30), ["→ alpha", "  beta", "  gamma", "  (1/5)"]);
	list.handleInput("\x1b[B");
	list.handleInput("\x1b[B");
	list.handleInput("\x1b[B");
	assert.deepEqual(list.render(30), ["  gamma", "→ delta", "  epsilon", "  (4/5)"]);
	let picked;
	let cancelled = false;
	list.onSelect = (i) => (picked = i.value);
	list.onCancel = () => (cancelled = true);
	list.handleInput("\r");
	list.handleInput("\x1b");
	assert.equal(picked, "delta");
	assert.ok(cancelled);
	const described = new api.SelectList([{ value: "a", label: "a", description: "the first letter" }], 5, {});
	assert.deepEqual(described.render(60), ["→ a                               the first letter"]);
	for (let w = 1; w < 70; w++) fits(described.render(w), w, "SelectList");
});

test("SettingsList cycles values and reports changes", () => {
	const items = [
		{ id: "verbose", label: "Verbose", currentValue: "off", values: ["on", "off"] },
		{ id: "color", label: "Color", currentValue: "on", values: ["on", "off"], description: "Colour output" },
	];
	const changes = [];
	let closed = false;
	const list = new api.SettingsList(items, 5, api.getSettingsListTheme(), (id, v) => changes.push(`${id}=${v}`), () => (closed = true));
	assert.deepEqual(list.render(40).map(strip), ["→ Verbose  off", "  Color    on", "", "  Enter/Space to change · Esc to cancel"]);
	list.handleInput("\r");
	list.handleInput("\x1b[B");
	list.handleInput(" ");
	list.handleInput("\x1b");
	assert.deepEqual(changes, ["verbose=on", "color=off"]);
	assert.ok(closed);
	const searchable = new api.SettingsList(items, 5, api.getSettingsListTheme(), () => {}, () => {}, { enableSearch: true });
	searchable.handleInput("c");
	searchable.handleInput("o");
	assert.ok(searchable.render(40).map(strip).some((l) => l.startsWith("→ Color")));
	for (let w = 1; w < 50; w++) fits(list.render(w), w, "SettingsList");
});

test("Input keeps the cursor in view", () => {
	const inp = new api.Input();
	for (const ch of "abcdefghijklmnop") inp.handleInput(ch);
	assert.equal(inp.getValue(), "abcdefghijklmnop");
	assert.equal(strip(inp.render(10)[0]), "> jklmnop ");
	inp.handleInput("\x17");
	assert.equal(inp.getValue(), "");
	let submitted;
	inp.onSubmit = (v) => (submitted = v);
	inp.setValue("ok");
	inp.handleInput("\r");
	assert.equal(submitted, "ok");
	for (let w = 1; w < 30; w++) fits(inp.render(w), w, "Input");
});

test("Markdown renders blocks and inline styles", () => {
	const md = new api.Markdown("# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n> quoted\n\n```js\nlet x = 1;\n```", 0, 0, api.getMarkdownTheme());
	assert.deepEqual(md.render(30).map(strip), ["Title", "", "Some bold and code.", "", "- one", "- two", "", "│ quoted", "", "```js", "  let x = 1;", "```"]);
	assert.ok(md.render(30)[2].includes("\x1b[1mbold"));
	for (let w = 1; w < 40; w++) fits(md.render(w), w, "Markdown");
});

test("Loader spins, CancellableLoader aborts on escape", () => {
	const l = new api.Loader(tui, (s) => s, (s) => s, "Working", { frames: ["*"] });
	assert.deepEqual(l.render(20), ["", " * Working"]);
	l.stop();
	const c = new api.CancellableLoader(tui, (s) => s, (s) => s, "Wait");
	let aborted = false;
	c.onAbort = () => (aborted = true);
	c.handleInput("\x1b");
	assert.ok(c.aborted && c.signal.aborted && aborted);
	c.dispose();
});

test("BorderedLoader and DynamicBorder", () => {
	const b = new api.BorderedLoader(tui, undefined, "Fetching");
	const lines = b.render(20);
	assert.equal(strip(lines[0]), "─".repeat(20));
	assert.equal(strip(lines[lines.length - 1]), "─".repeat(20));
	assert.ok(lines.some((l) => strip(l).includes("Fetching")));
	let aborted = false;
	b.onAbort = () => (aborted = true);
	b.handleInput("\x1b");
	assert.ok(aborted && b.signal.aborted);
	b.dispose();
	for (let w = 1; w < 30; w++) fits(b.render(w), w, "BorderedLoader");
});

test("a CustomEditor subclass (modal-editor.ts) fits its width", () => {
	class Modal extends api.CustomEditor {
		render(w) {
			const lines = super.render(w);
			lines[lines.length - 1] = api.truncateToWidth(lines[lines.length - 1], Math.max(0, w - 8), "") + " NORMAL ";
			return lines;
		}
	}
	const ed = new Modal(tui, api.getEditorTheme(), api.getKeybindings());
	ed.setText("a long line that has to wrap around the editor");
	for (let w = 10; w < 60; w++) fits(ed.render(w), w, "subclassed CustomEditor");
});

test("HStack, ScrollView, MouseRegion, Image", () => {
	const h = new api.HStack({ widths: [6], gap: 1 });
	h.addChild(new api.Text("left side", 0, 0));
	h.addChild(new api.Text("right", 0, 0));
	assert.deepEqual(h.render(20), ["left   right", "side"]);
	for (let w = 1; w < 30; w++) fits(h.render(w), w, "HStack");

	const body = new api.Container();
	for (let i = 1; i <= 10; i++) body.addChild(new api.Text(`line ${i}`, 0, 0));
	const sv = new api.ScrollView(body, 3);
	assert.deepEqual(sv.render(10).map((l) => l.slice(0, 9).trimEnd()), ["line 1", "line 2", "line 3"]);
	sv.handleInput("\x1b[6~");
	assert.deepEqual(sv.render(10).map((l) => l.slice(0, 9).trimEnd()), ["line 4", "line 5", "line 6"]);
	sv.handleInput("\x1b[F");
	assert.equal(sv.render(10)[2].slice(0, 9).trimEnd(), "line 10");
	for (let w = 1; w < 20; w++) fits(sv.render(w), w, "ScrollView");

	const clicks = [];
	const mr = new api.MouseRegion(new api.Text("x", 0, 0), { onClick: (x, y) => clicks.push([x, y]), onScroll: (d) => clicks.push(d) });
	mr.handleInput("\x1b[<0;5;7M");
	mr.handleInput("\x1b[<65;1;1M");
	assert.deepEqual(clicks, [[5, 7], 1]);

	// A 1x1 PNG.
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
	assert.deepEqual(new api.Image(png, "image/png", {}, { filename: "dot.png" }).render(40), ["[Image: image/png 1x1 dot.png]"]);
});

test("front matter, convertToLlm, serializeConversation", () => {
	const { frontmatter, body } = api.parseFrontmatter("---\nname: x\ntags: [a, b]\nlist:\n  - one\n  - two\ncount: 3\n---\nBody\n");
	assert.deepEqual(frontmatter, { name: "x", tags: ["a", "b"], list: ["one", "two"], count: 3 });
	assert.equal(body, "Body\n");
	assert.deepEqual(api.parseFrontmatter("no front matter"), { frontmatter: {}, body: "no front matter" });
	const msgs = [
		{ role: "user", content: "hi", timestamp: 1 },
		{ role: "assistant", content: [{ type: "text", text: "ok" }, { type: "toolCall", id: "t", name: "read", arguments: { path: "a" } }], timestamp: 2 },
		{ role: "toolResult", toolCallId: "t", toolName: "read", content: [{ type: "text", text: "data" }], timestamp: 3 },
		{ role: "bashExecution", command: "ls", output: "f", exitCode: 0, timestamp: 4 },
		{ role: "custom", customType: "note", content: "remember", display: true, timestamp: 5 },
		{ role: "compactionSummary", summary: "S", timestamp: 6 },
	];
	const llm = api.convertToLlm(msgs);
	assert.deepEqual(llm.map((m) => m.role), ["user", "assistant", "toolResult", "user", "user", "user"]);
	assert.equal(llm[3].content[0].text, "Ran `ls`\n```\nf\n```");
	assert.equal(
		api.serializeConversation(msgs.slice(0, 3)),
		'[User]: hi\n\n[Assistant]: ok\n\n[Assistant tool calls]: read(path="a")\n\n[Tool result]: data',
	);
});

test("calculateCost and unknown models", () => {
	const usage = { input: 1_000_000, output: 500_000, cacheRead: 0, cacheWrite: 0, cost: {} };
	const cost = api.calculateCost({ cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }, usage);
	assert.equal(cost.total, 10.5);
	assert.equal(api.getModel("nope", "none"), undefined);
});

for (const [name, fn] of tests) {
	try {
		await fn();
	} catch (e) {
		failures.push(`${name}: ${e.message}`);
	}
}
if (failures.length) {
	console.error(failures.join("\n"));
	process.exit(1);
}
console.log(`${tests.length} tests passed`);
process.exit(0);
