// A replacement prompt editor and a raw input listener, the way the
// original's modal-editor example and onTerminalInput are used.
import { CustomEditor, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

class ShoutEditor extends CustomEditor {
	mode = "normal";
	handleInput(data: string): void {
		if (data === "!") {
			this.mode = "shout";
			this.tui.requestRender();
			return;
		}
		super.handleInput(this.mode === "shout" ? data.toUpperCase() : data);
	}
	render(width: number): string[] {
		const lines = super.render(width);
		lines[lines.length - 1] = `[${this.mode}]`;
		return lines;
	}
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("shout", {
		handler: async (_args, ctx) => ctx.ui.setEditorComponent((tui, theme, kb) => new ShoutEditor(tui, theme, kb)),
	});
	pi.registerCommand("plain", { handler: async (_args, ctx) => ctx.ui.setEditorComponent(undefined) });
	pi.registerCommand("listen", {
		handler: async (_args, ctx) => {
			const off = ctx.ui.onTerminalInput((data) => {
				if (data === "x") return { consume: true };
				if (data === "y") return { data: "z" };
				if (data === "q") off();
				return undefined;
			});
		},
	});
}
