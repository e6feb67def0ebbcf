// Decides project_trust from a file the test writes into the project:
// "yes", "no", "undecided", "yes remember" or "throw". It records each
// time it is asked (with the context's mode and hasUI).
import * as fs from "node:fs";
import * as path from "node:path";
import { Type } from "@relay-harness/ai";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("project_trust", async (event, ctx) => {
		fs.appendFileSync(path.join(event.cwd, "trust-asked"), `${ctx.mode} ${ctx.hasUI}\n`);
		const file = path.join(event.cwd, "trust-verdict");
		const verdict = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : "undecided";
		if (verdict === "throw") throw new Error("trust handler failed on purpose");
		return { trusted: verdict.split(" ")[0] as "yes" | "no" | "undecided", remember: verdict.endsWith("remember") };
	});
	relay.registerTool({
		name: "trust_probe",
		description: "Shows that the trust extension is loaded",
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text: "probe" }], details: undefined };
		},
	});
}
