import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_LIST_PAGES } from "./defaults.js";
import type { McpConnection, ServerListKind } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";

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
 * `timeoutMs`. An empty `nextCursor` ends the list, like an absent one.
 * A list that would never end rejects with `protocol_error` instead of
 * asking forever: a `nextCursor` the server already gave (the same page
 * again, or pages in a cycle), or more than {@link MAX_LIST_PAGES} pages.
 * Otherwise rejects with the connection's classified error (or the
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
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const params = cursor === undefined ? {} : { cursor };
    const page = (await connection.request(method, timeoutMs, [signal], (scoped) =>
      connection.client.request({ method, params }, SCHEMAS[kind], { timeout: timeoutMs, signal: scoped }),
    )) as { nextCursor?: string } & Record<K, ListItems[K][]>;
    items.push(...page[kind]);
    const next = page.nextCursor;
    if (next === undefined || next === "") return items;
    if (cursors.has(next))
      throw endlessList(connection, method, `a nextCursor it had already given (${JSON.stringify(next)})`);
    if (cursors.size + 1 >= MAX_LIST_PAGES)
      throw endlessList(connection, method, `more than ${MAX_LIST_PAGES} pages (${items.length} items so far)`);
    cursors.add(next);
    cursor = next;
  }
}

/**
 * The server's tools (see {@link listAll}); none, without asking, from a
 * server that does not declare the tools capability (one that offers only
 * resources or prompts), which would refuse `tools/list`.
 */
export async function listTools(connection: McpConnection, timeoutMs: number, signal: AbortSignal): Promise<Tool[]> {
  if (connection.client.getServerCapabilities()?.tools === undefined) return [];
  return listAll(connection, "tools", timeoutMs, signal);
}

function endlessList(connection: McpConnection, method: string, problem: string): McpServerError {
  return new McpServerError({
    code: McpServerErrorCode.ProtocolError,
    serverId: connection.serverId,
    message: `answered ${method} with ${problem}: the list would never end`,
  });
}
