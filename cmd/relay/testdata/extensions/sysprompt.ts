// before_agent_start: adds a rule to the system prompt and a custom
// message before the prompt.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("before_agent_start", (event) => ({
		systemPrompt: `${event.systemPrompt}\n\nEXTENSION RULE: always mention tangerines.`,
		message: { customType: "sysprompt-note", content: "note from sysprompt.ts", display: false },
	}));
}
