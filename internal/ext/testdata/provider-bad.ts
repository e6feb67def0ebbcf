// Invalid provider configurations: each is refused naming the key.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerProvider("nokey", { baseUrl: "http://h", api: "openai-completions", models: [{ id: "m" } as never] });
	relay.registerProvider("badwindow", { baseUrl: "http://h", apiKey: "K", api: "openai-completions", models: [{ id: "m", contextWindow: "big" } as never] });
	relay.registerProvider("noapi", { baseUrl: "http://h", apiKey: "K", models: [{ id: "m" } as never], streamSimple: (() => undefined) as never });
	relay.registerTool({ name: "still_here", description: "", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [] }) } as never);
}
