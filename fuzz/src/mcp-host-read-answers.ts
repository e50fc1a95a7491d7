/**
 * The server's side of the host's reads (the `mcp-server` property): how a
 * generated server declares and answers `resources/list`,
 * `resources/templates/list`, `resources/read`, `prompts/list` and
 * `prompts/get`. Apart from `mcp-host-reads.ts` (the generator and the
 * checks) so that the stdio server's process loads only the SDK's server.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpHostReads, McpReadAnswer } from "./mcp-host-reads.js";

/** The capabilities a server with `reads` declares besides its own. */
export function readCapabilities(reads: McpHostReads | undefined): Record<string, unknown> {
  return reads?.declared ? { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } } : {};
}

/**
 * Answers the host's reads on `server` as `reads` says, each result marked
 * with `raw` (the key under which a result is sent as it is). `never`
 * holds a request the server leaves unanswered.
 */
export function serveHostReads(
  server: Server,
  reads: McpHostReads | undefined,
  raw: (result: unknown) => never,
  never: (signal: AbortSignal) => Promise<never>,
): void {
  if (!reads?.declared) return;
  const answer = (read: McpReadAnswer, signal: AbortSignal): Promise<never> => {
    switch (read.kind) {
      case "result":
        return Promise.resolve(raw(read.result));
      case "jsonRpcError":
        return Promise.reject(new McpError(read.code, read.message));
      case "throw":
        return Promise.reject(new Error("the index is down"));
      case "hang":
        return never(signal);
      default: {
        const unreachable: never = read;
        return unreachable;
      }
    }
  };
  server.setRequestHandler(ListResourcesRequestSchema, (_, extra) => answer(reads.resources, extra.signal));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (_, extra) => answer(reads.templates, extra.signal));
  server.setRequestHandler(ReadResourceRequestSchema, (_, extra) => answer(reads.read, extra.signal));
  server.setRequestHandler(ListPromptsRequestSchema, (_, extra) => answer(reads.prompts, extra.signal));
  server.setRequestHandler(GetPromptRequestSchema, (_, extra) => answer(reads.prompt, extra.signal));
}
