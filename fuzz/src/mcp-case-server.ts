/**
 * The generated MCP server of one `mcp-server` case, whatever carries it:
 * the SDK's low-level `Server` answering as the case says (`McpFuzzCase`).
 * Results go out as generated, past the SDK's own result check, so a
 * server that breaks the protocol is what the client sees. The transport
 * is the caller's: Streamable HTTP in this process (`mcp-fuzz-server.ts`)
 * or stdin/stdout in a child process (`mcp-stdio-server.ts`); what only a
 * transport can do (hang up on a call, close the session) is its
 * {@link CaseWire}'s.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readCapabilities, serveHostReads } from "./mcp-host-read-answers.js";
import type { McpCallStep, McpFuzzCase, McpFuzzTool, McpListing } from "./mcp-server-arbitraries.js";

/** What one case's server saw, for the checks. */
export interface McpCaseRecord {
  /** Calls the server received, by the tool's name as listed. */
  readonly calls: readonly string[];
  /** What the client answered the server's sampling and elicitation requests: a result or an error, as JSON. */
  readonly answers: readonly string[];
  /** Calls the server itself took {@link SLOW_CALL_MS} or more to answer (a loaded machine), by the tool's name. */
  readonly slowCalls: readonly string[];
}

/** How long the client waits for a call's next message (`callTimeoutMs`). */
export const CALL_TIMEOUT_MS = 1_000;

/**
 * A call the server took this long to answer may time out on the client
 * without a fault of the client's: its steps take milliseconds, so only a
 * machine too loaded to run them makes a call this slow.
 */
export const SLOW_CALL_MS = CALL_TIMEOUT_MS / 2;

/** Where a case's server notes what it saw (in memory over HTTP, in a file from a stdio server's process). */
export interface CaseLog {
  called(name: string): void;
  answered(text: string): void;
  slow(name: string): void;
}

/** The state of one case's server, shared by its sessions (HTTP) or held by its process (stdio). */
export interface CaseState {
  readonly spec: McpFuzzCase;
  readonly log: CaseLog;
  /** How many `tools/list` requests were answered. */
  lists: number;
  /** Set once a call announced `list_changed`: later lists answer `toolsAfterChange`. */
  changed: boolean;
}

type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

/** What the transport carrying a case's server does for it. */
export interface CaseWire {
  /** The transport the server is connected to; messages sent as they are go through its `send`. */
  readonly transport: Transport;
  /** Ends a call as only the transport can (`hangUp`, `closeSession`); settles when the call is cancelled. */
  endCall(kind: "hangUp" | "closeSession", extra: Extra): Promise<never>;
  /** Called when a `tools/call` arrives, before the case's steps (the stdio server's faults hook in here). */
  callStarted?(name: string, requestId: string | number): Promise<void>;
}

/** Key under which a result is sent as generated (the SDK checks what a handler returns). */
const RAW_RESULT = "__fuzzRawResult";
/** Key marking a generated result sent as a server in Python sends it, with `"error": null` beside it. */
const WITH_NULL_ERROR = "__fuzzWithNullError";

/** The message with a generated result in place of the placeholder a handler returned. */
export function withRawResult(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (!result || !(RAW_RESULT in result)) return message;
  return { ...message, result: result[RAW_RESULT], ...(result[WITH_NULL_ERROR] === true && { error: null }) } as never;
}

/**
 * `message` without the nulls a server in Python writes for absent members
 * (`"error": null` beside a result, the result's `"_meta": null`), which
 * the protocol reads as absent: what the protocol's schema is to take.
 */
export function withoutPythonNulls(message: unknown): unknown {
  if (typeof message !== "object" || message === null || !("result" in message)) return message;
  const read: Record<string, unknown> = { ...message };
  if (read.error === null) delete read.error;
  const result = read.result;
  if (typeof result === "object" && result !== null && (result as { _meta?: unknown })._meta === null) {
    const { _meta: _null, ...fields } = result as Record<string, unknown>;
    read.result = fields;
  }
  return read;
}

/** The case's server, not connected yet; `wire.transport.send` must pass each message through {@link withRawResult}. */
export function caseServer(state: CaseState, wire: CaseWire): Server {
  const server = new Server(
    { name: "fuzz", version: "0.1.0" },
    {
      capabilities: { ...state.spec.server.capabilities, ...readCapabilities(state.spec.hostReads) },
      ...(state.spec.server.instructions !== undefined && { instructions: state.spec.server.instructions }),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    state.lists++;
    const tools =
      state.changed && state.spec.toolsAfterChange
        ? state.spec.toolsAfterChange
        : state.spec.tools.map((tool) => tool.entry);
    const page = listPage(state.spec.listing, tools, request.params?.cursor);
    return { [RAW_RESULT]: withLastCursor(page, state.spec.lastCursor) } as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const started = performance.now();
    state.log.called(name);
    try {
      await wire.callStarted?.(name, extra.requestId);
      const tool = state.spec.tools.find((candidate) => candidate.entry.name === name);
      if (!tool) throw new McpError(-32602, `no tool ${name}`);
      for (const step of tool.steps) await runStep(state, step, request.params._meta?.progressToken, extra, wire);
      return await answer(tool, wire, extra);
    } finally {
      if (performance.now() - started >= SLOW_CALL_MS) state.log.slow(name);
    }
  });
  serveHostReads(server, state.spec.hostReads, (result) => ({ [RAW_RESULT]: result }) as never, never);
  return server;
}

/** One page of `tools/list` as `listing` says; throws the JSON-RPC error of the `error` listing. */
function listPage(listing: McpListing, tools: readonly unknown[], cursor: string | undefined): unknown {
  switch (listing) {
    case "one":
      return { tools };
    case "pages":
    case "offsets": {
      const page = cursor === undefined ? 0 : Number(cursor);
      const next = listing === "offsets" ? page + 1 : String(page + 1);
      return { tools: tools.slice(page, page + 1), ...(page + 1 < tools.length && { nextCursor: next }) };
    }
    case "endless":
      // Pages in a cycle (a server walking past 1,000 fresh cursors is bounded too, but takes seconds to get there).
      return { tools: tools.slice(0, 1), nextCursor: cursor === "c1" ? "c2" : "c1" };
    case "error":
      throw new McpError(-32603, "tool registry is down", { retry: true });
    case "notList":
      return { tools: { first: tools[0] } };
    default: {
      const unreachable: never = listing;
      return unreachable;
    }
  }
}

/** `page` with `nextCursor: lastCursor` when it is a last page (it has a list and no cursor) and a last cursor is given. */
function withLastCursor(page: unknown, lastCursor: null | "" | undefined): unknown {
  if (lastCursor === undefined || typeof page !== "object" || page === null || "nextCursor" in page) return page;
  if (!Array.isArray((page as { tools?: unknown }).tools)) return page;
  return { ...page, nextCursor: lastCursor };
}

async function runStep(
  state: CaseState,
  step: McpCallStep,
  progressToken: string | number | undefined,
  extra: Extra,
  wire: CaseWire,
): Promise<void> {
  const { transport } = wire;
  const answered = (result: unknown) => state.log.answered(JSON.stringify(result) ?? "undefined");
  const failed = (error: unknown) => state.log.answered(error instanceof Error ? error.message : String(error));
  // The SDK refuses notifications for capabilities the server did not declare: those are sent as they are.
  const notify = (notification: { method: string; params?: Record<string, unknown> }) =>
    extra
      .sendNotification(notification as never)
      .catch(() =>
        transport.send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage, { relatedRequestId: extra.requestId }),
      );
  switch (step.kind) {
    case "progress":
      if (progressToken === undefined) return;
      if (step.underRequestId) progressToken = extra.requestId;
      await notify({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: step.progress,
          ...(step.total !== undefined && { total: step.total }),
          ...(step.message !== undefined && { message: step.message }),
        },
      });
      return;
    case "log":
      await notify({
        method: "notifications/message",
        params: { level: step.level as "info", logger: "fuzz", data: step.data },
      });
      return;
    case "delay":
      await new Promise((resolve) => setTimeout(resolve, step.ms));
      return;
    case "listChanged":
      state.changed = true;
      await notify({ method: "notifications/tools/list_changed" });
      return;
    case "sample":
    case "elicit":
    case "ask": {
      const method =
        step.kind === "sample" ? "sampling/createMessage" : step.kind === "elicit" ? "elicitation/create" : step.method;
      const params = step.kind === "ask" ? undefined : step.params;
      // The SDK refuses requests for capabilities the client did not declare: those are sent as they are.
      const request = { method, ...(params !== undefined && { params }) };
      // A request the server gives up: the SDK's server sends notifications/cancelled for it.
      const cancelAfterMs = step.kind === "ask" ? undefined : step.cancelAfterMs;
      const giveUp = cancelAfterMs === undefined ? undefined : AbortSignal.timeout(cancelAfterMs);
      await extra
        .sendRequest(request as never, ResultSchema, { timeout: 5_000, ...(giveUp && { signal: giveUp }) })
        .then(answered, async (error: unknown) => {
          if (giveUp?.aborted) return;
          if (!(error instanceof Error) || !/does not support|not support/.test(error.message)) return failed(error);
          await transport.send({ jsonrpc: "2.0", id: `unasked-${++state.lists}`, ...request } as JSONRPCMessage, {
            relatedRequestId: extra.requestId,
          });
        });
      return;
    }
    case "raw":
      // A response to a request nobody made cannot be routed by the SDK's HTTP transport: it is not sent.
      await transport
        .send(withCallId(step.message, extra.requestId) as JSONRPCMessage, { relatedRequestId: extra.requestId })
        .catch(() => {});
      return;
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

async function answer(tool: McpFuzzTool, wire: CaseWire, extra: Extra): Promise<never> {
  const { end } = tool;
  switch (end.kind) {
    case "result":
      return { [RAW_RESULT]: end.result, ...(end.nulls && { [WITH_NULL_ERROR]: true }) } as never;
    case "jsonRpcError":
      throw new McpError(end.code, end.message, end.data);
    case "throw":
      throw new Error("database is down");
    case "hang":
      return never(extra.signal);
    case "hangUp":
    case "closeSession":
      return wire.endCall(end.kind, extra);
    default: {
      const unreachable: never = end;
      return unreachable;
    }
  }
}

/**
 * `message` with a `tools/list` request's numeric cursor (sent back from an
 * `offsets` listing) as a string: the SDK's server takes only a string.
 */
export function withStringCursor(message: unknown): unknown {
  const request = message as { method?: unknown; params?: { cursor?: unknown } } | null;
  if (request?.method !== "tools/list" || typeof request.params?.cursor !== "number") return message;
  return { ...request, params: { ...request.params, cursor: String(request.params.cursor) } };
}

/** `message` with the call's request id wherever it says `$id`. */
function withCallId(message: unknown, id: string | number): unknown {
  return JSON.parse(JSON.stringify(message), (_key, value: unknown) => (value === "$id" ? id : value));
}

/** A promise that settles only when the client cancels the call (or the session closes). */
export function never(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("cancelled"));
    signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
  });
}
