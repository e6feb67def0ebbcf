// A tool that kills the host process.
export default function (relay) {
	relay.registerTool({
		name: "crash",
		label: "Crash",
		description: "exits the host",
		parameters: { type: "object", properties: {} },
		execute: async () => {
			process.exit(7);
		},
	});
	relay.registerTool({
		name: "alive",
		label: "Alive",
		description: "answers after a restart",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "alive again" }] }),
	});
}
