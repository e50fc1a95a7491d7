import { ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./mcp-connection.js";

/**
 * Every tool of the server, following `nextCursor` pages, each page within
 * `timeoutMs`. Rejects with the connection's classified error (or the
 * signal's reason).
 */
export async function listAllTools(connection: McpConnection, timeoutMs: number, signal: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    const page = await connection.request("tools/list", timeoutMs, [signal], (scoped) =>
      connection.client.request({ method: "tools/list", params }, ListToolsResultSchema, {
        timeout: timeoutMs,
        signal: scoped,
      }),
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
