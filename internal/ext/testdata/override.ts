// A tool named like relay's built-in read: it replaces it.
export default function (relay) {
	relay.registerTool({
		name: "read", label: "Read (audited)", description: "audited read",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
		execute: async (_id, params) => ({ content: [{ type: "text", text: `audited ${params.path}` }] }),
	});
}
