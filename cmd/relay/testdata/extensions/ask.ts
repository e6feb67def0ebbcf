// A command that asks the session's model directly through pi-ai's
// complete and streamSimple (relay's providers and credentials answer)
// and records what came back.
import { complete, getModel, streamSimple } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("ask", {
		description: "Ask the model directly",
		handler: async (args, ctx) => {
			const model = getModel(ctx.model!.provider, ctx.model!.id);
			if (!model) throw new Error("getModel did not find the session's model");
			const question = { role: "user" as const, content: [{ type: "text" as const, text: args }], timestamp: Date.now() };
			const first = await complete(model, { systemPrompt: "You answer questions.", messages: [question] });
			const events: string[] = [];
			const stream = streamSimple(model, { messages: [question, first, { ...question, content: [{ type: "text", text: "again" }] }] });
			for await (const ev of stream) events.push(ev.type);
			const second = await stream.result();
			const text = (m: any) => m.content.filter((c: any) => c.type === "text").map((c: any) => c.text).join("");
			pi.appendEntry("answers", { first: text(first), second: text(second), stopReason: second.stopReason, events });
		},
	});
}
