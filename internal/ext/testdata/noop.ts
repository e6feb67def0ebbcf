// A no-op tool_call handler and a tool that does nothing: the protocol's
// round-trip costs, and what the Go side sees of each event.
import { Type } from "@relay-harness/ai";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("tool_call", (event) => {
		if (event.toolName === "blockme") return { block: true, reason: "blocked by noop.ts" };
		if (event.toolName === "rewrite") event.input.value = "rewritten";
		return undefined;
	});
	relay.registerTool({
		name: "noop",
		label: "No-op",
		description: "does nothing",
		parameters: Type.Object({ n: Type.Optional(Type.Number()) }),
		async execute(_id, params, _signal, onUpdate) {
			if (params.n) for (let i = 0; i < params.n; i++) onUpdate?.({ content: [{ type: "text", text: `u${i}` }], details: {} });
			return { content: [{ type: "text", text: "ok" }], details: { n: params.n ?? 0 } };
		},
	});
	relay.registerTool({
		name: "slow",
		label: "Slow",
		description: "waits for its abort signal",
		parameters: Type.Object({}),
		execute: (_id, _params, signal) =>
			new Promise((resolve) => signal?.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "aborted" }], details: {} }))),
	});
}
