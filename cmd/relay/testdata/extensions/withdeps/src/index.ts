// An extension with its own dependency, resolved from its node_modules.
import pad from "tiny-pad";
import { Type } from "@relay-harness/ai";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerTool({
		name: "pad",
		label: "Pad",
		description: "Pads a word",
		parameters: Type.Object({ word: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: pad(params.word, 10, "*") }], details: {} };
		},
	});
}
