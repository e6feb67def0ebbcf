// A tool_call handler that never returns.
export default function (relay) {
	relay.on("tool_call", () => new Promise(() => {}));
}
