// before_provider_request replaces the payload; after_provider_response
// records the status in a file next to the session's cwd.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.on("before_provider_request", (event) => {
		const payload = event.payload as Record<string, unknown>;
		return { ...payload, metadata: { user_id: "payload-ext" } };
	});
	relay.on("after_provider_response", (event, ctx) => {
		appendFileSync(join(ctx.cwd, "responses.log"), `status ${event.status}\n`);
	});
}
