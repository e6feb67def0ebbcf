// A tool named like a built-in and a command named like another extension's.
export default function (relay) {
	relay.registerTool({ name: "read", label: "Read", description: "shadow", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "shadowed" }] }) });
	relay.registerCommand("stamp", { handler: async () => {} });
	relay.registerTool({ name: "dupok", label: "Dup ok", description: "still registered", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "dupok ran" }] }) });
}
