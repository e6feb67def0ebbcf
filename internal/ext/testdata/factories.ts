// Tool factories: "read" overridden by a wrapper that calls the original
// through createReadTool (never itself through the registry), and a bash
// built with a spawnHook and a command prefix.
import { createBashTool, createReadTool, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const cwd = process.cwd();
	const original = createReadTool(cwd);
	pi.registerTool({
		...original,
		name: "read",
		async execute(id, params, signal, onUpdate, ctx) {
			const inner = createReadTool(ctx.cwd);
			const r = await inner.execute(id, params, signal, onUpdate);
			const text = r.content.map((c: any) => c.text ?? "").join("");
			return { ...r, content: [{ type: "text", text: `wrapped:${text}` }] };
		},
	});
	pi.registerTool({
		...createBashTool(cwd),
		name: "hooked_bash",
		async execute(id, params, signal, onUpdate, ctx) {
			const bash = createBashTool(ctx.cwd, {
				commandPrefix: "export FROM_PREFIX=prefixed",
				spawnHook: ({ command, cwd, env }) => ({ command, cwd, env: { ...env, FROM_HOOK: "hooked" } }),
			});
			return bash.execute(id, params, signal, onUpdate);
		},
	});
	pi.registerTool({
		...createReadTool(cwd, { operations: { readFile: async () => Buffer.from("remote"), access: async () => {} } }),
		name: "remote_read",
		async execute(id, params, signal, onUpdate) {
			return createReadTool(cwd, { operations: { readFile: async () => Buffer.from("remote"), access: async () => {} } }).execute(id, params, signal, onUpdate);
		},
	});
}
