// A command that names the session, appends a custom entry and labels
// nothing; with argument completions.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerCommand("stamp", {
		description: "Name the session and record a stamp",
		getArgumentCompletions: (prefix) => ["alpha", "beta"].filter((v) => v.startsWith(prefix)).map((v) => ({ value: v, label: v })),
		handler: async (args, ctx) => {
			relay.setSessionName(`stamped ${args}`);
			relay.appendEntry("stamp", { args, cwd: ctx.cwd, hasUI: ctx.hasUI });
			ctx.ui.notify(`stamped ${args}`, "info");
		},
	});
}
