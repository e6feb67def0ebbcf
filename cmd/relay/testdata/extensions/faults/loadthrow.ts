// Registers a tool, then throws: nothing of it may remain.
export default function (relay) {
	relay.registerTool({ name: "half", label: "Half", description: "never usable", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [] }) });
	throw new Error("factory exploded");
}
