import { type McpExtension, type McpServerStatus, createMcpExtension } from "@turnkit/agent-mcp";
import { DEMO_MCP_SERVER_ID, DEMO_MCP_SERVER_SCRIPT } from "./defaults.js";
import type { McpCommand } from "./mcp-command.js";

/**
 * The run's MCP servers, each an extension of the runtime: the demo's issue
 * tracker when the scripted demo plays, then one per `--mcp`, with ids
 * `mcp-1`, `mcp-2`, … in command-line order. Nothing starts here.
 */
export function createMcpServerExtensions(options: { commands: readonly McpCommand[]; demo: boolean }): McpExtension[] {
  // Every server may ask the user a question (elicitation); yes/no ones are asked like a permission.
  const servers = options.commands.map((server, index) =>
    createMcpExtension({ id: `mcp-${index + 1}`, server, elicitation: {} }),
  );
  if (!options.demo) return servers;
  return [
    createMcpExtension({
      id: DEMO_MCP_SERVER_ID,
      server: { command: process.execPath, args: [DEMO_MCP_SERVER_SCRIPT] },
      elicitation: {},
    }),
    ...servers,
  ];
}

/**
 * Starts every server now rather than at the first turn, so the banner can
 * list the tools each one brought. A server that fails to start is reported
 * in its status; the agent runs without its tools.
 */
export async function connectMcpServers(servers: readonly McpExtension[]): Promise<McpServerStatus[]> {
  return Promise.all(servers.map((server) => server.connect().catch(() => server.status)));
}

/** One banner line per server: its tools, or why it has none. */
export function describeMcpServer(status: McpServerStatus): string {
  if (status.state === "ready")
    return `mcp ${status.id}: ${status.tools.length === 0 ? "no tools" : status.tools.map((tool) => tool.name).join(", ")}`;
  return `mcp ${status.id}: ${status.lastError?.message ?? status.state}`;
}
