// Renderers for relay's transcript: registerMessageRenderer,
// registerEntryRenderer and a tool's renderCall / renderResult. relay asks
// for one block's lines at a width (renderItem); the renderer returns a
// component (or nothing: relay draws the block itself) whose
// render(width) gives the lines.

// Tool rows keep the state renderers share across calls (context.state,
// lastComponent) per toolCallId; the oldest rows go past this many.
const MAX_ROWS = 500;

export function makeRenderItem({ renderers, tools, state, theme, notify }) {
	const rows = new Map(); // toolCallId -> {state, last: {renderCall, renderResult}}

	function row(id) {
		let r = rows.get(id);
		if (r) {
			// Most recently used last, so the oldest go first.
			rows.delete(id);
			rows.set(id, r);
			return r;
		}
		r = { state: {}, last: {} };
		rows.set(id, r);
		while (rows.size > MAX_ROWS) rows.delete(rows.keys().next().value);
		return r;
	}

	function lines(comp, width) {
		if (!comp || typeof comp.render !== "function") throw new Error("renderer did not return a component");
		const out = comp.render(width);
		if (!Array.isArray(out)) throw new Error("component render() did not return an array of lines");
		return out.map((l) => String(l));
	}

	return async function renderItem(p) {
		const width = Math.max(1, Number(p.width) || 80);
		const expanded = !!p.expanded;
		if (p.target === "message" || p.target === "entry") {
			const fn = renderers.get(p.target + ":" + p.name);
			if (typeof fn !== "function") return { ok: false };
			const opts = p.target === "message" ? { expanded, outputPad: 0 } : { expanded };
			const comp = await fn(p.data, opts, theme);
			if (!comp) return { ok: false };
			return { ok: true, lines: lines(comp, width) };
		}
		const slot = p.target === "toolCall" ? "renderCall" : p.target === "toolResult" ? "renderResult" : "";
		const def = tools.get(p.name)?.def;
		if (!slot || typeof def?.[slot] !== "function") return { ok: false };
		const d = p.data ?? {};
		const r = row(d.toolCallId ?? "");
		const context = {
			args: d.args ?? {},
			toolCallId: d.toolCallId ?? "",
			invalidate: () => notify("render_invalidate", { toolCallId: d.toolCallId ?? "" }),
			lastComponent: r.last[slot],
			state: r.state,
			cwd: state.cwd,
			executionStarted: !!d.executionStarted,
			argsComplete: !!d.argsComplete,
			isPartial: !!d.isPartial,
			expanded,
			showImages: false,
			isError: !!d.isError,
		};
		const comp =
			slot === "renderCall"
				? await def.renderCall(context.args, theme, context)
				: await def.renderResult(d.result ?? { content: [] }, { expanded, isPartial: context.isPartial }, theme, context);
		r.last[slot] = comp;
		if (!comp) return { ok: false };
		return { ok: true, lines: lines(comp, width) };
	};
}
