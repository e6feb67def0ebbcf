// @relay-harness/ai's model calls for extensions: complete and streamSimple
// go through relay's providers and credentials (the runtime's one-shot
// completion), never a provider client of the host's own. An extension's
// apiKey and headers are not needed: relay resolves the model's.

import { createAssistantMessageEventStream } from "./stream.mjs";
import { libRequest } from "./tools.mjs";

const host = () => globalThis.__relayHost ?? {};

function modelRef(model) {
	if (!model || typeof model.provider !== "string" || typeof model.id !== "string")
		throw new Error("complete: model must be a model object with provider and id (ctx.model, getModel, modelRegistry.find)");
	return { provider: model.provider, id: model.id };
}

// Tool declarations as relay's wire takes them.
function toolSpecs(tools) {
	if (!Array.isArray(tools)) return undefined;
	return tools.map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters }));
}

async function run(model, context, options, reasoning) {
	const params = {
		model: modelRef(model),
		systemPrompt: context?.systemPrompt ?? "",
		messages: Array.isArray(context?.messages) ? context.messages : [],
		tools: toolSpecs(context?.tools),
		maxTokens: options?.maxTokens ?? 0,
		temperature: options?.temperature,
		reasoning: reasoning ?? "",
	};
	return libRequest("complete", params, options?.signal);
}

// complete resolves with the assistant message; a provider failure is a
// message with stopReason "error" (or "aborted" after options.signal), as
// pi-ai's complete does.
export const complete = (model, context, options) => run(model, context, options, options?.reasoningEffort);
export const completeSimple = (model, context, options) => run(model, context, options, options?.reasoning);

// replay turns a finished message into the event sequence a stream
// delivers. relay's one-shot completion answers whole messages, so the
// deltas arrive together at the end (one delta per block).
function replay(s, msg) {
	const partial = { ...msg, content: [] };
	s.push({ type: "start", partial });
	(msg.content ?? []).forEach((block, i) => {
		partial.content.push(block);
		if (block.type === "text") {
			s.push({ type: "text_start", contentIndex: i, partial });
			s.push({ type: "text_delta", contentIndex: i, delta: block.text, partial });
			s.push({ type: "text_end", contentIndex: i, content: block.text, partial });
		} else if (block.type === "thinking") {
			s.push({ type: "thinking_start", contentIndex: i, partial });
			s.push({ type: "thinking_delta", contentIndex: i, delta: block.thinking, partial });
			s.push({ type: "thinking_end", contentIndex: i, content: block.thinking, partial });
		} else if (block.type === "toolCall") {
			s.push({ type: "toolcall_start", contentIndex: i, partial });
			s.push({ type: "toolcall_delta", contentIndex: i, delta: JSON.stringify(block.arguments ?? {}), partial });
			s.push({ type: "toolcall_end", contentIndex: i, toolCall: block, partial });
		}
	});
	if (msg.stopReason === "error" || msg.stopReason === "aborted") s.push({ type: "error", reason: msg.stopReason, error: msg });
	else s.push({ type: "done", reason: msg.stopReason, message: msg });
}

function streamOf(model, context, options, reasoning) {
	const s = createAssistantMessageEventStream();
	run(model, context, options, reasoning).then(
		(msg) => replay(s, msg),
		(e) => {
			const msg = {
				role: "assistant", content: [], api: model?.api ?? "", provider: model?.provider ?? "", model: model?.id ?? "",
				usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
				stopReason: options?.signal?.aborted ? "aborted" : "error", errorMessage: String(e?.message ?? e), timestamp: Date.now(),
			};
			s.push({ type: "error", reason: msg.stopReason, error: msg });
		},
	);
	return s;
}

export const stream = (model, context, options) => streamOf(model, context, options, options?.reasoningEffort);
export const streamSimple = (model, context, options) => streamOf(model, context, options, options?.reasoning);

// getModel finds a model of relay's registry (those with credentials:
// the catalog relay sends the host); undefined for an unknown one.
export function getModel(provider, id) {
	const m = host().state?.models?.find((x) => x.provider === provider && x.id === id);
	return m ? structuredClone(m) : undefined;
}
export function getModels(provider) {
	return (host().state?.models ?? []).filter((x) => x.provider === provider).map((x) => structuredClone(x));
}
export function getProviders() {
	return [...new Set((host().state?.models ?? []).map((x) => x.provider))];
}

export function modelsAreEqual(a, b) {
	return !!a && !!b && a.provider === b.provider && a.id === b.id;
}
