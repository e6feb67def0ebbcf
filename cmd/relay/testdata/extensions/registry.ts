// ctx.modelRegistry: lookups and credentials, written to registry.json in
// the working directory by the /registry command.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerCommand("registry", {
		handler: async (_args, ctx) => {
			const r = ctx.modelRegistry;
			const echo = r.find("scripted", "echo");
			const sonnet = r.find("anthropic", "claude-sonnet-4-5");
			const out = {
				echo: echo ? `${echo.provider}/${echo.id} ${echo.api} ${echo.contextWindow}` : null,
				all: r.getAll().length,
				availableHasEcho: r.getAvailable().some((m) => m.provider === "scripted" && m.id === "echo"),
				configured: echo ? r.hasConfiguredAuth(echo) : null,
				echoAuth: echo ? await r.getApiKeyAndHeaders(echo) : null,
				sonnetKey: sonnet ? await r.getApiKey(sonnet) : null,
				anthropicKey: await r.getApiKeyForProvider("anthropic"),
				unknown: await r.getApiKeyAndHeaders({ provider: "nope", id: "x" } as never),
				noKey: await r.getApiKeyForProvider("mistral"),
				current: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
			};
			writeFileSync(join(ctx.cwd, "registry.json"), JSON.stringify(out));
		},
	});
}
