// The streaming half of the AI package's API that provider extensions
// use: the event stream their streamSimple returns and cost accounting.
// relay runs the stream in the host and forwards its events.

// AssistantMessageEventStream is an async-iterable queue of assistant
// message events. The producer pushes events and ends it; the consumer
// iterates. A done or error event settles result() with its message.
export class AssistantMessageEventStream {
	#events = [];
	#wake = null;
	#ended = false;
	#settle;
	#final;

	constructor() {
		this.#final = new Promise((resolve) => (this.#settle = resolve));
	}

	push(event) {
		if (this.#ended) return;
		if (event?.type === "done") this.#settle(event.message);
		else if (event?.type === "error") this.#settle(event.error);
		if (event?.type === "done" || event?.type === "error") this.#ended = true;
		this.#events.push(event);
		this.#signal();
	}

	end(result) {
		this.#ended = true;
		if (result !== undefined) this.#settle(result);
		this.#signal();
	}

	#signal() {
		const wake = this.#wake;
		this.#wake = null;
		wake?.();
	}

	async *[Symbol.asyncIterator]() {
		for (;;) {
			if (this.#events.length > 0) {
				yield this.#events.shift();
				continue;
			}
			if (this.#ended) return;
			await new Promise((resolve) => (this.#wake = resolve));
		}
	}

	result() {
		return this.#final;
	}
}

export const EventStream = AssistantMessageEventStream;

export function createAssistantMessageEventStream() {
	return new AssistantMessageEventStream();
}

// calculateCost fills usage.cost from the model's rates (USD per million
// tokens) and returns it.
export function calculateCost(model, usage) {
	const rate = model?.cost ?? {};
	const part = (k) => ((Number(rate[k]) || 0) * (Number(usage?.[k]) || 0)) / 1e6;
	const cost = { input: part("input"), output: part("output"), cacheRead: part("cacheRead"), cacheWrite: part("cacheWrite") };
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	if (usage) usage.cost = cost;
	return cost;
}
