// Renderers for relay's transcript, as in the original's message-renderer
// and todo examples.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text, Container } from "@mariozechner/pi-tui";
import { Type } from "typebox";

export default function (pi: ExtensionAPI) {
	pi.registerMessageRenderer("status", (message, { expanded }, theme) => {
		let text = theme.fg("accent", `<${message.customType}> `) + message.content;
		if (expanded && message.details) text += "\n" + JSON.stringify(message.details);
		return new Text(text, 0, 0);
	});
	pi.registerMessageRenderer("quiet", () => undefined);
	pi.registerMessageRenderer("broken", () => {
		throw new Error("renderer broke");
	});
	pi.registerEntryRenderer("note", (entry, { expanded }) =>
		new Text(`note ${entry.id}: ${entry.data?.text}${expanded ? " (expanded)" : ""}`, 0, 0),
	);
	pi.registerTool({
		name: "todo",
		label: "Todo",
		description: "A tool with its own rendering",
		parameters: Type.Object({ action: Type.String() }),
		async execute(_id, params, _signal, onUpdate) {
			onUpdate?.({ content: [{ type: "text", text: "working" }], details: { step: 1 } });
			return { content: [{ type: "text", text: "done" }], details: { items: ["a", "b"] } };
		},
		renderCall(args, theme, context) {
			context.state.calls = (context.state.calls ?? 0) + 1;
			const t = (context.lastComponent as Text | undefined) ?? new Text("", 0, 0);
			t.setText(theme.bold(`TODO ${args.action}`) + ` #${context.state.calls}`);
			return t;
		},
		renderResult(result, { expanded, isPartial }, _theme, context) {
			if (isPartial) return new Text("Processing...", 0, 0);
			const c = new Container();
			c.addChild(new Text(`✓ ${result.content[0]?.text} for ${context.args.action}`, 0, 0));
			if (expanded) for (const i of result.details?.items ?? []) c.addChild(new Text(`- ${i}`, 0, 0));
			return c;
		},
	});
}
