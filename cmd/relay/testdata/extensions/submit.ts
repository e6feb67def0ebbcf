// A terminating tool: the run ends with its result, no further model call.
import { Type } from "typebox";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerTool({
		name: "submit",
		label: "Submit",
		description: "Submit the final answer",
		parameters: Type.Object({ answer: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: `submitted ${params.answer}` }], details: {}, terminate: true };
		},
	});
}
