import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection, ServerListKind } from "./mcp-connection.js";

/** What each of the server's lists holds. */
interface ListItems extends Record<ServerListKind, unknown> {
  tools: Tool;
  resources: Resource;
  prompts: Prompt;
}

const SCHEMAS = {
  tools: ListToolsResultSchema,
  resources: ListResourcesResultSchema,
  prompts: ListPromptsResultSchema,
} as const;

/**
 * Every item of one of the server's lists (`tools/list`, `resources/list`,
 * `prompts/list`), following `nextCursor` pages, each page within
 * `timeoutMs`. Rejects with the connection's classified error (or the
 * signal's reason).
 */
export async function listAll<K extends ServerListKind>(
  connection: McpConnection,
  kind: K,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ListItems[K][]> {
  const items: ListItems[K][] = [];
  const method = `${kind}/list` as const;
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    const page = (await connection.request(method, timeoutMs, [signal], (scoped) =>
      connection.client.request({ method, params }, SCHEMAS[kind], { timeout: timeoutMs, signal: scoped }),
    )) as { nextCursor?: string } & Record<K, ListItems[K][]>;
    items.push(...page[kind]);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}
