export function setup(relay) {
	relay.on("input", () => ({ action: "continue" }));
}
