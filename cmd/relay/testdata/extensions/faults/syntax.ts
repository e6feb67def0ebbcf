export default function (relay) {
	relay.on("input", (event) => {
		return { action: "continue" ;
	});
}
