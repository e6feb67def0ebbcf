// Tool factories: "read" overridden by a wrapper that calls the original
// through createReadTool (never itself through the registry), and a bash
// built with a spawnHook and a command prefix.
import {
	createBashTool,
	createEditTool,
	createGrepTool,
	createLocalBashOperations,
	createReadTool,
	createWriteTool,
	type ExtensionAPI,
} from "@mariozechner/pi-coding-agent";

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
	// Operations over an in-memory file system (as ssh.ts reaches a remote
	// machine): read, write and edit go through them.
	const files = new Map<string, string>([["/remote/notes.txt", "remote one\nremote two\n"]]);
	const dirs: string[] = [];
	const ops = {
		readFile: async (p: string) => {
			if (!files.has(p)) throw new Error(`ENOENT ${p}`);
			return Buffer.from(files.get(p)!);
		},
		access: async (p: string) => {
			if (!files.has(p)) throw new Error(`ENOENT ${p}`);
		},
		writeFile: async (p: string, content: string) => void files.set(p, content),
		mkdir: async (d: string) => void dirs.push(d),
	};
	for (const [name, make] of [["mem_read", createReadTool], ["mem_write", createWriteTool], ["mem_edit", createEditTool]] as const) {
		pi.registerTool({
			...make("/remote"),
			name,
			execute: (id: string, params: any, signal: any, onUpdate: any) => (make as any)("/remote", { operations: ops }).execute(id, params, signal, onUpdate),
		});
	}
	pi.registerTool({
		...createReadTool(cwd),
		name: "mem_files",
		execute: async () => ({ content: [{ type: "text", text: JSON.stringify({ files: Object.fromEntries(files), dirs }) }] }),
	});
	pi.registerTool({
		...createGrepTool(cwd),
		name: "remote_grep",
		execute: (id, params, signal, onUpdate) =>
			createGrepTool(cwd, { operations: { isDirectory: () => false, readFile: () => "" } }).execute(id, params, signal, onUpdate),
	});
	// BashOperations run in the host (a sandbox, a remote shell).
	pi.registerTool({
		...createBashTool(cwd),
		name: "ops_bash",
		execute: (id, params, signal, onUpdate, ctx) =>
			createBashTool(ctx.cwd, { operations: createLocalBashOperations() }).execute(id, params, signal, onUpdate),
	});
}
