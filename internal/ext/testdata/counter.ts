// A custom component: counts keys, closes on "q" with the count, which
// the command reports through notify.
import { matchesKey, Text } from "@relay-harness/tui";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerCommand("count", {
		description: "count keys until q",
		handler: async (_args, ctx) => {
			const n = await ctx.ui.custom<number>((tui, _theme, _kb, done) => {
				let count = 0;
				const text = new Text("count: 0", 0, 0);
				return {
					render: (width: number) => text.render(width),
					handleInput(data: string) {
						if (matchesKey(data, "q")) return done(count);
						count++;
						text.setText(`count: ${count}`);
						tui.requestRender();
					},
					invalidate() {},
				};
			});
			ctx.ui.notify(`counted ${n}`, "info");
			const ok = await ctx.ui.confirm("Keep?", `counted ${n}`);
			ctx.ui.setStatus("counter", ok ? "kept" : "dropped");
		},
	});
}
