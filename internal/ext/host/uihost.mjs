// The prompt editor an extension sets (ctx.ui.setEditorComponent) and raw
// terminal input listeners (ctx.ui.onTerminalInput). The editor lives
// here like every component: relay draws its lines, sends it every key,
// and learns its text (editor_text) and submissions (editor_submit);
// keys it leaves to relay go back as ui.editorAppKey.

export function makeUIHost({ request, notify, mount, components, state, theme, keybindings }) {
	let factory; // the current editor factory (getEditorComponent)
	let shown = 0; // the mounted editor's component id
	const inputs = new Map(); // listener id -> handler
	let nextInput = 0;

	const idOf = (comp) => {
		for (const [id, c] of components) if (c === comp) return id;
		return 0;
	};

	Object.assign(globalThis.__relayHost, {
		editorChanged(comp) {
			const id = idOf(comp);
			if (id) notify("editor_text", { id, text: comp.getText() });
		},
		editorSubmit(comp, text) {
			const id = idOf(comp);
			if (id) notify("editor_submit", { id, text });
		},
		editorAppKey(comp, data) {
			const id = idOf(comp);
			if (!id) return Promise.resolve(false);
			return request("call", { ext: -1, method: "ui.editorAppKey", args: [id, data] }).then(
				(handled) => !!handled,
				() => false,
			);
		},
	});

	return {
		setEditorComponent(ext, f) {
			factory = typeof f === "function" ? f : undefined;
			const tell = (id) => notify("api", { ext: ext.index, method: "ui.setEditorComponent", args: [id] });
			if (!factory) {
				shown = 0;
				tell(null);
				return;
			}
			if (!state.hasUI) return;
			const mine = factory;
			mount(mine, [theme, keybindings]).then((id) => {
				if (factory !== mine) return; // replaced meanwhile
				shown = id;
				tell(id);
			}, (e) => notify("error", { ext: ext.index, event: "setEditorComponent", message: e instanceof Error ? e.message : String(e) }));
		},
		getEditorComponent: () => factory,
		getEditorText() {
			const comp = shown && components.get(shown);
			return comp && typeof comp.getText === "function" ? comp.getText() : undefined;
		},
		onTerminalInput(ext, handler) {
			if (typeof handler !== "function") throw new Error("onTerminalInput: handler is not a function");
			const id = ++nextInput;
			inputs.set(id, handler);
			notify("api", { ext: ext.index, method: "ui.onTerminalInput", args: [id] });
			return () => {
				if (inputs.delete(id)) notify("api", { ext: ext.index, method: "ui.offTerminalInput", args: [id] });
			};
		},
		// relay -> host
		terminalInput(p) {
			const h = inputs.get(p.id);
			if (!h) return { consume: false };
			const r = h(String(p.data ?? ""));
			return { consume: !!r?.consume, data: typeof r?.data === "string" ? r.data : undefined };
		},
		setEditorText(p) {
			const comp = components.get(p.id);
			if (comp && typeof comp.setText === "function" && comp.getText?.() !== p.text) comp.setText(p.text ?? "");
			return null;
		},
	};
}
