// Tools built from relay's built-ins with the factories pi's examples
// use: a read that reports its line count around the original's output
// (as built-in-tool-renderer.ts does) and a bash with a spawnHook (as
// bash-spawn-hook.ts does), under names of their own.
import { createBashTool, createReadTool, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const cwd = process.cwd();
	const read = createReadTool(cwd);
	pi.registerTool({
		...read,
		name: "counted_read",
		label: "counted read",
		async execute(id, params, signal, onUpdate) {
			const r = await read.execute(id, params, signal, onUpdate);
			const text = r.content.map((c: any) => c.text ?? "").join("");
			return { ...r, content: [{ type: "text", text: `${text}\n[${text.split("\n").length} lines]` }] };
		},
	});
	const bash = createBashTool(cwd, {
		spawnHook: ({ command, cwd, env }) => ({ command, cwd, env: { ...env, PI_SPAWN_HOOK: "1" } }),
	});
	pi.registerTool({ ...bash, name: "hooked_bash", execute: (id, params, signal, onUpdate) => bash.execute(id, params, signal, onUpdate) });
}
