// Conversation helpers of @relay-harness/coding-agent: front matter,
// converting agent messages to what models take (convertToLlm, as relay's
// llm.ToModelMessages does), the transcript summaries read
// (serializeConversation, as relay's compaction.Serialize), and
// AuthStorage over relay's auth.json for extensions that read credentials.

import fs from "node:fs";
import path from "node:path";

const host = () => globalThis.__relayHost ?? {};

// ---- front matter ----

function scalar(v) {
	v = v.trim();
	if (v === "") return "";
	if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) return v.slice(1, -1);
	if (v === "true" || v === "false") return v === "true";
	if (v === "null" || v === "~") return null;
	if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
	if (v.startsWith("[") && v.endsWith("]"))
		return v
			.slice(1, -1)
			.split(",")
			.map((x) => scalar(x))
			.filter((x) => x !== "");
	return v;
}

// parseFrontmatter reads a leading "---" block of simple YAML (key:
// value, lists as "- item" or [a, b], block scalars with | and >):
// {frontmatter, body}.
export function parseFrontmatter(content) {
	const text = String(content ?? "").replace(/^\uFEFF/, "");
	const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	if (!m) return { frontmatter: {}, body: text };
	const fm = {};
	const lines = m[1].split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const kv = /^([A-Za-z0-9_.-]+)\s*:\s*(.*)$/.exec(lines[i]);
		if (!kv) continue;
		const [, key, rest] = kv;
		if (rest === "|" || rest === ">" || rest === "|-" || rest === ">-") {
			const block = [];
			for (; i + 1 < lines.length && (/^\s+/.test(lines[i + 1]) || lines[i + 1] === ""); i++) block.push(lines[i + 1].replace(/^\s{2}|\t/, ""));
			fm[key] = rest.startsWith("|") ? block.join("\n").replace(/\n+$/, "") : block.join(" ").trim();
		} else if (rest === "") {
			const items = [];
			for (; i + 1 < lines.length && /^\s*-\s+/.test(lines[i + 1]); i++) items.push(scalar(lines[i + 1].replace(/^\s*-\s+/, "")));
			fm[key] = items.length ? items : "";
		} else fm[key] = scalar(rest);
	}
	return { frontmatter: fm, body: text.slice(m[0].length) };
}

export function stripFrontmatter(content) {
	return parseFrontmatter(content).body;
}

// ---- messages ----

const COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX = "\n</summary>";
const BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX = "</summary>";

function bashText(m) {
	let s = `Ran \`${m.command}\`\n`;
	s += m.output ? "```\n" + m.output + "\n```" : "(no output)";
	if (m.cancelled) s += "\n\n(command cancelled)";
	else if (m.exitCode != null && m.exitCode !== 0) s += `\n\nCommand exited with code ${m.exitCode}`;
	if (m.truncated && m.fullOutputPath) s += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
	return s;
}

const user = (text, timestamp) => ({ role: "user", content: [{ type: "text", text }], timestamp });

// convertToLlm turns agent messages into the user, assistant and
// toolResult messages providers take: relay's own roles become user
// messages, others are dropped.
export function convertToLlm(messages) {
	const out = [];
	for (const m of messages ?? []) {
		switch (m?.role) {
			case "user":
			case "assistant":
			case "toolResult":
				out.push(m);
				break;
			case "bashExecution":
				if (!m.excludeFromContext) out.push(user(bashText(m), m.timestamp));
				break;
			case "custom": {
				const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
				out.push({ role: "user", content, timestamp: m.timestamp });
				break;
			}
			case "branchSummary":
				out.push(user(BRANCH_PREFIX + m.summary + BRANCH_SUFFIX, m.timestamp));
				break;
			case "compactionSummary":
				out.push(user(COMPACTION_PREFIX + m.summary + COMPACTION_SUFFIX, m.timestamp));
				break;
		}
	}
	return out;
}

function plain(content) {
	if (typeof content === "string") return content;
	return (content ?? [])
		.filter((c) => c?.type === "text")
		.map((c) => c.text)
		.join("");
}

const TOOL_RESULT_MAX = 2000;

// serializeConversation renders messages as the labelled transcript a
// summarizing model reads.
export function serializeConversation(messages) {
	const parts = [];
	for (const m of convertToLlm(messages)) {
		if (m.role === "user") {
			const t = plain(m.content);
			if (t) parts.push(`[User]: ${t}`);
		} else if (m.role === "assistant") {
			const text = [];
			const thinking = [];
			const calls = [];
			for (const b of m.content ?? []) {
				if (b.type === "text") text.push(b.text);
				else if (b.type === "thinking" && !b.redacted) thinking.push(b.thinking);
				else if (b.type === "toolCall")
					calls.push(`${b.name}(${Object.entries(b.arguments ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")})`);
			}
			if (thinking.length) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
			if (text.length) parts.push(`[Assistant]: ${text.join("\n")}`);
			if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
		} else if (m.role === "toolResult") {
			let t = plain(m.content);
			if (t.length > TOOL_RESULT_MAX) t = `${t.slice(0, TOOL_RESULT_MAX)}\n[... ${t.length - TOOL_RESULT_MAX} more characters truncated]`;
			if (t) parts.push(`[Tool result]: ${t}`);
		}
	}
	return parts.join("\n\n");
}

// ---- AuthStorage ----

// Environment variables providers read their keys from.
const ENV_KEYS = {
	anthropic: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
	openai: ["OPENAI_API_KEY"],
	google: ["GEMINI_API_KEY"],
	groq: ["GROQ_API_KEY"],
	cerebras: ["CEREBRAS_API_KEY"],
	xai: ["XAI_API_KEY"],
	openrouter: ["OPENROUTER_API_KEY"],
	mistral: ["MISTRAL_API_KEY"],
	zai: ["ZAI_API_KEY"],
	"vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
	"github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
};

// AuthStorage reads the credentials in relay's auth.json (and keys set
// for this run). Signing in and out belong to relay (/login, relay auth):
// those methods say so rather than writing auth.json behind relay's lock.
export class AuthStorage {
	#path;
	#data = {};
	#runtime = new Map();
	#fallback;
	#errors = [];
	constructor(authPath, data) {
		this.#path = authPath;
		if (data) this.#data = structuredClone(data);
		else this.reload();
	}
	static create(authPath) {
		return new AuthStorage(authPath ?? path.join(host().agentDir || "", "auth.json"));
	}
	static inMemory(data = {}) {
		return new AuthStorage(undefined, data);
	}
	static fromStorage() {
		throw new Error("AuthStorage.fromStorage: custom storage backends are not supported by relay yet");
	}
	reload() {
		if (!this.#path) return;
		try {
			this.#data = JSON.parse(fs.readFileSync(this.#path, "utf8")) ?? {};
		} catch (e) {
			if (e?.code !== "ENOENT") this.#errors.push(e);
			this.#data = {};
		}
	}
	setRuntimeApiKey(provider, key) {
		this.#runtime.set(provider, key);
	}
	removeRuntimeApiKey(provider) {
		this.#runtime.delete(provider);
	}
	setFallbackResolver(fn) {
		this.#fallback = fn;
	}
	get(provider) {
		const c = this.#data[provider];
		return c ? structuredClone(c) : undefined;
	}
	set() {
		throw new Error("AuthStorage.set: relay manages auth.json; use /login or relay auth");
	}
	remove() {
		throw new Error("AuthStorage.remove: relay manages auth.json; use /logout or relay auth");
	}
	login() {
		return Promise.reject(new Error("AuthStorage.login: sign in with /login or relay auth"));
	}
	logout() {
		throw new Error("AuthStorage.logout: sign out with /logout or relay auth");
	}
	list() {
		return Object.keys(this.#data);
	}
	has(provider) {
		return provider in this.#data;
	}
	#envKey(provider) {
		for (const v of ENV_KEYS[provider] ?? []) if (process.env[v]) return process.env[v];
		return undefined;
	}
	hasAuth(provider) {
		return this.#runtime.has(provider) || this.has(provider) || !!this.#envKey(provider) || !!this.#fallback?.(provider);
	}
	getAuthStatus(provider) {
		if (this.#runtime.has(provider)) return { configured: true, source: "runtime" };
		const c = this.#data[provider];
		if (c) return { configured: true, source: "stored", type: c.type };
		if (this.#envKey(provider)) return { configured: true, source: "environment" };
		return { configured: false };
	}
	getAll() {
		return structuredClone(this.#data);
	}
	drainErrors() {
		const e = this.#errors;
		this.#errors = [];
		return e;
	}
	async getApiKey(provider) {
		if (this.#runtime.has(provider)) return this.#runtime.get(provider);
		const c = this.#data[provider];
		if (c?.type === "api_key" && c.key) return this.#resolve(provider, c.key);
		if (c?.type === "oauth" && c.access && (!c.expires || c.expires > Date.now())) return c.access;
		return this.#envKey(provider) ?? this.#fallback?.(provider);
	}
	// #resolve reads a stored key as relay does: literal, $NAME or
	// ${NAME}; a !command key is relay's to run, not an extension's.
	#resolve(provider, key) {
		const env = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(key);
		if (env) return process.env[env[1]];
		if (key.startsWith("!")) {
			this.#errors.push(new Error(`auth.json ${provider}: a !command key is resolved by relay, not by extensions`));
			return undefined;
		}
		return key;
	}
	getOAuthProviders() {
		return [];
	}
}
