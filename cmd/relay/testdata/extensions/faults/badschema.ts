export default function (relay) {
	relay.registerTool({ name: "bad", label: "Bad", description: "bad schema", parameters: "nope", execute: async () => ({ content: [] }) });
}
