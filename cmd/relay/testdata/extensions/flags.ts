// registerFlag: unknown --flags on the command line reach the extension.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerFlag("plan", { description: "plan only", type: "boolean", default: false });
	relay.registerFlag("persona", { description: "who to be", type: "string", default: "engineer" });
	relay.on("before_agent_start", (event) => ({
		systemPrompt: `${event.systemPrompt}\n\nFLAGS plan=${relay.getFlag("plan")} persona=${relay.getFlag("persona")}`,
	}));
}
