// Registers an MCP server, follows the server list and keeps cache
// warming off for small prompts.
import type { ExtensionAPI } from "@relay-harness/coding-agent";

export default function (relay: ExtensionAPI) {
	relay.registerMcpServer("docs", { command: "docs-server", args: ["--stdio"] });
	relay.on("mcp_servers_change", (event) => {
		relay.appendEntry("seen-servers", { names: event.servers.map((s: { name: string }) => s.name) });
	});
	relay.on("cache_warming_decision", (event) => {
		if (event.missCost < 1) return { action: "stop" };
	});
}
