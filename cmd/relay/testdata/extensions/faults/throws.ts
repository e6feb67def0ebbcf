// Handlers and a tool that throw.
export default function (relay) {
	relay.on("input", () => {
		throw new Error("input handler broke");
	});
	relay.on("tool_call", (event) => {
		if (event.toolName === "bash") throw new Error("gate broke");
	});
	relay.registerTool({
		name: "boom",
		label: "Boom",
		description: "always fails",
		parameters: { type: "object", properties: {} },
		execute: async () => {
			throw new Error("boom failed");
		},
	});
}
