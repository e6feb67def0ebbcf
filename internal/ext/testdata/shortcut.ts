// A shortcut whose handler reports through a thrown error, so the test
// sees that it ran with a context.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerShortcut("Shift+Ctrl+Y", {
		description: "yank the plan",
		handler: async (ctx) => {
			throw new Error(`yanked with model ${ctx.model?.id ?? "none"}`);
		},
	});
}
