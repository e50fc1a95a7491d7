import * as z from "zod/v4";
import {
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_LIST_PAGES } from "./defaults.js";
import type { McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { type ReadTools, ToolPageSchema, readToolEntries } from "./tool-entries.js";

/** What each of the server's lists holds, by the key of its result. */
interface ListItems {
  /** Each entry is read on its own (see `readToolEntries`). */
  tools: unknown;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
  prompts: Prompt;
}

/** A page's `nextCursor` as servers send it: the protocol's string, or a number (an offset). */
const Cursor = z.union([z.string(), z.number()]);

/**
 * `schema` of a list's page, reading a `nextCursor` that is null as an
 * absent one (the last page): servers written in languages whose absent
 * value is written as null (Python's `None`) send it so, and the
 * protocol's schema takes only a string. A number is taken too, as servers
 * written by hand page by offset (`"nextCursor": 100`): it is sent back as
 * it came.
 */
function readableCursor<S extends z.ZodObject>(schema: S) {
  return z.preprocess(
    (page) => {
      if (typeof page !== "object" || page === null || (page as { nextCursor?: unknown }).nextCursor !== null)
        return page;
      const { nextCursor: _null, ...rest } = page as Record<string, unknown>;
      return rest;
    },
    schema.extend({ nextCursor: Cursor.optional() }),
  );
}

/** How each list is asked for: the method and the result's schema. */
const LISTS = {
  tools: { method: "tools/list", schema: readableCursor(ToolPageSchema) },
  resources: { method: "resources/list", schema: readableCursor(ListResourcesResultSchema) },
  resourceTemplates: {
    method: "resources/templates/list",
    schema: readableCursor(ListResourceTemplatesResultSchema),
  },
  prompts: { method: "prompts/list", schema: readableCursor(ListPromptsResultSchema) },
} as const;

/**
 * Every item of one of the server's lists (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`), following `nextCursor`
 * pages, each page within `timeoutMs`. An empty or null `nextCursor` ends the list, like an absent one;
 * a number is a cursor, sent back as it came.
 * A list that would never end rejects with `protocol_error` instead of
 * asking forever: a `nextCursor` the server already gave (the same page
 * again, or pages in a cycle), or more than {@link MAX_LIST_PAGES} pages.
 * Otherwise rejects with the connection's classified error (or the
 * signal's reason).
 */
export async function listAll<K extends keyof ListItems>(
  connection: McpConnection,
  kind: K,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ListItems[K][]> {
  const items: ListItems[K][] = [];
  const { method, schema } = LISTS[kind];
  // By their JSON: the number 1 and the string "1" are two cursors.
  const cursors = new Set<string>();
  let cursor: string | number | undefined;
  for (;;) {
    const params = cursor === undefined ? {} : { cursor };
    const page: { nextCursor?: string | number; [key: string]: unknown } = await connection.request(
      method,
      timeoutMs,
      [signal],
      (scoped) =>
        connection.client.request({ method, params: params as { cursor?: string } }, schema, {
          timeout: timeoutMs,
          signal: scoped,
        }),
    );
    // The schema has checked that the page's list is there, of the list's items.
    items.push(...(page[kind] as ListItems[K][]));
    const next = page.nextCursor;
    if (next === undefined || next === "") return items;
    if (cursors.has(JSON.stringify(next)))
      throw endlessList(connection, method, `a nextCursor it had already given (${JSON.stringify(next)})`);
    if (cursors.size + 1 >= MAX_LIST_PAGES)
      throw endlessList(connection, method, `more than ${MAX_LIST_PAGES} pages (${items.length} items so far)`);
    cursors.add(JSON.stringify(next));
    cursor = next;
  }
}

/**
 * The server's tools (see {@link listAll}), each entry read on its own
 * (see `readToolEntries`: an entry no client can offer is left out, named
 * in `unreadable`); none, without asking, from a server that does not
 * declare the tools capability (one that offers only resources or
 * prompts), which would refuse `tools/list`.
 */
export async function listTools(connection: McpConnection, timeoutMs: number, signal: AbortSignal): Promise<ReadTools> {
  if (connection.client.getServerCapabilities()?.tools === undefined) return { tools: [], unreadable: [] };
  return readToolEntries(await listAll(connection, "tools", timeoutMs, signal));
}

function endlessList(connection: McpConnection, method: string, problem: string): McpServerError {
  return new McpServerError({
    code: McpServerErrorCode.ProtocolError,
    serverId: connection.serverId,
    message: `answered ${method} with ${problem}: the list would never end`,
  });
}
