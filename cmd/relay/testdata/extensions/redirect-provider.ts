// Sends an extension provider's requests to the fake provider: a second
// registerProvider with only baseUrl keeps the provider's models and its
// stream and moves its endpoint (the documented override semantics).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	const url = process.env.RELAY_TEST_PROVIDER_URL;
	if (url) pi.registerProvider("custom-anthropic", { baseUrl: url });
}
