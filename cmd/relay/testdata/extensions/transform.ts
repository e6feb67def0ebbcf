// input: "?short X" becomes a brief-answer request; "ping" is handled
// without the model.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("input", (event, ctx) => {
		if (event.source === "extension") return { action: "continue" };
		if (event.text.startsWith("?short ")) {
			return { action: "transform", text: `Answer in one line: ${event.text.slice(7)}` };
		}
		if (event.text === "ping") {
			ctx.ui.notify("pong", "info");
			return { action: "handled" };
		}
		return { action: "continue" };
	});
}
