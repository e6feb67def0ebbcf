// A provider with its own streamSimple: what it streams depends on the
// last user message, so one extension covers text, thinking, tool calls,
// errors, throws, a stream that waits for its abort and a host crash.
import { type AssistantMessage, createAssistantMessageEventStream, calculateCost } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

function lastUserText(context: any): string {
	for (let i = context.messages.length - 1; i >= 0; i--) {
		const m = context.messages[i];
		if (m.role !== "user") continue;
		if (typeof m.content === "string") return m.content;
		return m.content.map((c: any) => (c.type === "text" ? c.text : "")).join("");
	}
	return "";
}

function streamScripted(model: any, context: any, options: any) {
	const stream = createAssistantMessageEventStream();
	const said = lastUserText(context);
	if (said === "throw") throw new Error("no credentials for scripted");
	const output: AssistantMessage = {
		role: "assistant", content: [], api: model.api, provider: model.provider, model: model.id,
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
		stopReason: "stop", timestamp: Date.now(),
	} as any;
	const text = (t: string) => {
		output.content.push({ type: "text", text: "" });
		const i = output.content.length - 1;
		stream.push({ type: "text_start", contentIndex: i, partial: output });
		for (const piece of t.match(/.{1,3}/gs) ?? []) {
			(output.content[i] as any).text += piece;
			stream.push({ type: "text_delta", contentIndex: i, delta: piece, partial: output });
		}
		stream.push({ type: "text_end", contentIndex: i, content: (output.content[i] as any).text, partial: output });
	};
	(async () => {
		stream.push({ type: "start", partial: output });
		switch (said) {
			case "options":
				text(JSON.stringify({ apiKey: options?.apiKey, system: context.systemPrompt, tools: (context.tools ?? []).map((t: any) => t.name),
					model: model.id, baseUrl: model.baseUrl, reasoning: options?.reasoning ?? null, aborted: options?.signal?.aborted }));
				break;
			case "think":
				output.content.push({ type: "thinking", thinking: "" } as any);
				stream.push({ type: "thinking_start", contentIndex: 0, partial: output });
				(output.content[0] as any).thinking = "pondering";
				(output.content[0] as any).thinkingSignature = "sig-1";
				stream.push({ type: "thinking_delta", contentIndex: 0, delta: "pondering", partial: output });
				stream.push({ type: "thinking_end", contentIndex: 0, content: "pondering", partial: output });
				text("answer");
				break;
			case "tool": {
				output.content.push({ type: "toolCall", id: "call-1", name: "lookup", arguments: {} } as any);
				stream.push({ type: "toolcall_start", contentIndex: 0, partial: output });
				for (const d of ['{"q":', '"relay"}']) stream.push({ type: "toolcall_delta", contentIndex: 0, delta: d, partial: output });
				(output.content[0] as any).arguments = { q: "relay" };
				stream.push({ type: "toolcall_end", contentIndex: 0, toolCall: output.content[0] as any, partial: output });
				output.stopReason = "toolUse";
				break;
			}
			case "error":
				output.stopReason = "error";
				output.errorMessage = "429 rate limit exceeded";
				stream.push({ type: "error", reason: "error", error: output });
				stream.end();
				return;
			case "hang":
				text("waiting");
				await new Promise((resolve) => options.signal.addEventListener("abort", resolve, { once: true }));
				output.stopReason = "aborted";
				output.errorMessage = "Request was aborted";
				stream.push({ type: "error", reason: "aborted", error: output });
				stream.end();
				return;
			case "crash":
				text("partial");
				setTimeout(() => process.exit(7), 20);
				return;
			case "final-only":
				output.content.push({ type: "text", text: "all at once" });
				break;
			default:
				text(`echo: ${said}`);
		}
		output.usage.input = 10;
		output.usage.output = 2;
		output.usage.totalTokens = 12;
		calculateCost(model, output.usage);
		stream.push({ type: "done", reason: output.stopReason as any, message: output });
		stream.end();
	})();
	return stream;
}

export default function (pi: ExtensionAPI) {
	pi.registerProvider("scripted", {
		name: "Scripted",
		baseUrl: "http://scripted.invalid",
		apiKey: "SCRIPTED_KEY",
		api: "scripted-api",
		models: [
			{ id: "echo", name: "Echo", reasoning: true, input: ["text"], cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 4096 },
		],
		streamSimple: streamScripted,
	});
	pi.registerCommand("drop-scripted", { handler: async () => pi.unregisterProvider("scripted") });
	pi.registerCommand("proxy-anthropic", { handler: async () => pi.registerProvider("anthropic", { baseUrl: "https://proxy.invalid" }) });
}
