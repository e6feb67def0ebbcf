// context_with_system: the handler owns the whole transcript. It replaces
// the prompt (keeping the tool declarations of the system message) and
// adds a user message at the end.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("context_with_system", (event) => {
		const [sys, ...rest] = event.messages;
		if (sys?.role !== "system") throw new Error("no leading system message");
		const { sections: _sections, ...keep } = sys as Record<string, unknown>;
		return {
			messages: [{ ...keep, content: "You are a pirate." }, ...rest, { role: "user", content: "Arr, one more thing.", timestamp: 0 }],
		};
	});
}
