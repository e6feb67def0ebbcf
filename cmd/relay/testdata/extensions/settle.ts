// agent_before_settle: the first time the agent would settle, propose
// a custom state entry and a custom message and continue once; a second
// handler records what it saw of the first one's proposal.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("agent_before_settle", (event) => {
		const answers = event.context.contextMessages.filter((m: { role: string }) => m.role === "assistant").length;
		if (answers > 1) return undefined;
		return {
			entries: [
				...event.entries,
				{ type: "custom", customType: "settle-state", data: { round: answers } },
				{ type: "custom_message", customType: "settle-note", content: "Please also list what you checked.", display: true },
			],
			continue: true,
		};
	});
	relay.on("agent_before_settle", (event) => ({
		entries: [...event.entries, { type: "custom", customType: "settle-seen", data: { seen: event.entries.length, cont: event.continue, outcome: event.outcome } }],
	}));
}
