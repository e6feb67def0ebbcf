// Custom provider streams: relay asks the host to run a provider's
// streamSimple (registerProvider) for one request; its events go back as
// they come, without the growing `partial` message each one carries (relay
// rebuilds the message itself), and the call answers with the final
// message.

// slim keeps what relay needs of one AssistantMessageEvent.
function slim(ev) {
	const out = { type: ev.type };
	if (typeof ev.contentIndex === "number") out.contentIndex = ev.contentIndex;
	switch (ev.type) {
		case "text_delta":
		case "thinking_delta":
		case "toolcall_delta":
			out.delta = String(ev.delta ?? "");
			break;
		case "text_end":
		case "thinking_end":
			out.content = typeof ev.content === "string" ? ev.content : undefined;
			out.signature = ev.partial?.content?.[ev.contentIndex]?.thinkingSignature ?? ev.partial?.content?.[ev.contentIndex]?.textSignature;
			break;
		case "toolcall_start": {
			const block = ev.partial?.content?.[ev.contentIndex] ?? {};
			out.id = String(block.id ?? "");
			out.name = String(block.name ?? "");
			break;
		}
		case "toolcall_end":
			out.toolCall = ev.toolCall;
			break;
		case "done":
			out.reason = ev.reason;
			out.message = ev.message;
			break;
		case "error":
			out.reason = ev.reason;
			out.message = ev.error;
			break;
	}
	return out;
}

// runStream calls config.streamSimple(model, context, options) and
// forwards its events through emit. The answer is the final message (the
// done or error event's), or an error when the stream ended without one.
export async function runStream(config, p, signal, emit) {
	const options = { ...(p.options ?? {}), signal };
	const context = { systemPrompt: p.context?.systemPrompt ?? "", messages: p.context?.messages ?? [], tools: p.context?.tools };
	const stream = await config.streamSimple(p.model, context, options);
	if (!stream || typeof stream[Symbol.asyncIterator] !== "function")
		throw new Error("streamSimple did not return an AssistantMessageEventStream");
	let final;
	for await (const ev of stream) {
		if (!ev || typeof ev.type !== "string") continue;
		const s = slim(ev);
		if (s.type === "done" || s.type === "error") {
			final = s;
			break;
		}
		emit(s);
	}
	if (!final && typeof stream.result === "function" && !signal.aborted) {
		// end() without a terminal event may never settle result().
		const msg = await Promise.race([stream.result(), new Promise((r) => setTimeout(r, 0))]);
		if (msg) final = { type: msg.stopReason === "error" || msg.stopReason === "aborted" ? "error" : "done", reason: msg.stopReason, message: msg };
	}
	if (!final) {
		if (signal.aborted) return { type: "error", reason: "aborted", message: { stopReason: "aborted", errorMessage: "Request was aborted" } };
		throw new Error("the stream ended without a done or error event");
	}
	return final;
}

// makeModelRegistry is ctx.modelRegistry: the lookups read the model
// lists relay sends with its calls (all models, and those with
// credentials); credentials are resolved by relay on request.
export function makeModelRegistry(state, call) {
	const all = () => state.allModels ?? state.models ?? [];
	const available = () => state.models ?? [];
	const same = (a, b) => a && b && a.provider === b.provider && a.id === b.id;
	return {
		find: (provider, id) => all().find((m) => m.provider === provider && m.id === id),
		getAll: () => [...all()],
		getAvailable: () => [...available()],
		hasConfiguredAuth: (model) => available().some((m) => same(m, model)),
		getApiKeyAndHeaders: (model) => call("getApiKeyAndHeaders", model),
		getApiKey: async (model) => (await call("getApiKeyAndHeaders", model))?.apiKey,
		getApiKeyForProvider: (provider) => call("getApiKeyForProvider", provider),
		getProviderDisplayName: (provider) => state.providerNames?.[provider] ?? provider,
		getError: () => undefined,
		refresh: () => {},
	};
}
