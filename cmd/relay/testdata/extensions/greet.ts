// A tool with a TypeBox schema, streamed updates and details.
import { Type } from "@relay-harness/ai";
import { defineTool, type ExtensionAPI } from "@relay-harness/coding-agent";

interface GreetDetails {
	greeted: string;
	steps: number;
}

const greet = defineTool({
	name: "greet",
	label: "Greet",
	description: "Greets someone by name",
	parameters: Type.Object({
		name: Type.String({ description: "Who to greet" }),
		shout: Type.Optional(Type.Boolean()),
	}),
	async execute(toolCallId, params, signal, onUpdate) {
		onUpdate?.({ content: [{ type: "text", text: `working on ${params.name}` }], details: { greeted: "", steps: 1 } });
		const text = `Hello, ${params.name}!`;
		const details: GreetDetails = { greeted: params.name, steps: 2 };
		return {
			content: [{ type: "text", text: params.shout ? text.toUpperCase() : `${text} (call ${toolCallId}, aborted=${signal?.aborted ?? false})` }],
			details,
		};
	},
});

export default function (relay: ExtensionAPI) {
	relay.registerTool(greet);
}
