// A virtual model routed before every request, and a command selecting it.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerVirtualModel({
		provider: "ext",
		id: "auto",
		name: "Extension router",
		thinkingLevels: ["off", "low"],
		route: (request) => ({
			model: { provider: "anthropic", id: request.model.id === "auto" ? "claude-haiku-4-5" : "claude-sonnet-4-5" },
			thinkingLevel: "off",
		}),
	});
	relay.registerCommand("use-auto", {
		handler: async (_args, ctx) => {
			const ok = await relay.setModel({ provider: "ext", id: "auto" } as never);
			ctx.ui.notify(ok ? "auto on" : "auto unavailable", "info");
		},
	});
}
