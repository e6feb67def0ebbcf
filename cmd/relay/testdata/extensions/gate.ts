// tool_call: blocks bash commands that mention "forbidden" and rewrites
// the input of echo commands (input is mutable).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("tool_call", async (event) => {
		if (event.toolName !== "bash") return undefined;
		const command = String(event.input.command ?? "");
		if (command.includes("forbidden")) {
			return { block: true, reason: `gate.ts refused: ${command}` };
		}
		if (command.startsWith("echo ")) {
			event.input.command = command + " gated";
		}
		return undefined;
	});
	pi.on("tool_result", (event) => {
		if (event.toolName !== "bash") return undefined;
		const text = event.content.map((c) => (c.type === "text" ? c.text : "")).join("");
		return { content: [{ type: "text", text: `${text.trim()} [seen by gate]` }] };
	});
}
