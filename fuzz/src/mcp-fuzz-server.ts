/**
 * The `mcp-server` property's server: one Streamable HTTP endpoint on
 * 127.0.0.1 per process, started at the first case and reused, serving
 * each case at a path of its own with the SDK's low-level `Server`, whose
 * behaviour is the case's (`McpFuzzCase`). Results go out as generated,
 * past the SDK's own result check, so a server that breaks the protocol
 * is what the client sees.
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readCapabilities, serveHostReads } from "./mcp-host-reads.js";
import type { McpCallStep, McpFuzzCase, McpFuzzTool, McpListing } from "./mcp-server-arbitraries.js";

/** What one case's server saw, for the checks. */
export interface McpCaseRecord {
  /** Calls the server received, by the tool's name as listed. */
  readonly calls: string[];
  /** What the client answered the server's sampling and elicitation requests: a result or an error, as JSON. */
  readonly answers: string[];
}

/** A case being served: its endpoint and what its server saw. */
export interface ServedCase {
  readonly url: string;
  readonly record: McpCaseRecord;
  /** Closes the case's sessions and stops serving its path. */
  close(): Promise<void>;
}

interface CaseState {
  readonly spec: McpFuzzCase;
  readonly record: McpCaseRecord;
  readonly sessions: Map<string, StreamableHTTPServerTransport>;
  /** The HTTP response of each `tools/call` in flight, by session and JSON-RPC id (to hang up on it). */
  readonly callResponses: Map<string, ServerResponse>;
  /** How many `tools/list` requests were answered. */
  lists: number;
  /** Set once a call announced `list_changed`: later lists answer `toolsAfterChange`. */
  changed: boolean;
}

const cases = new Map<string, CaseState>();
let listening: Promise<{ server: HttpServer; origin: string }> | undefined;
let nextCase = 0;

/** Key under which a result is sent as generated (the SDK checks what a handler returns). */
const RAW_RESULT = "__fuzzRawResult";

/** Serves `spec` at a path of its own on the shared endpoint (started on first use). */
export async function serveCase(spec: McpFuzzCase): Promise<ServedCase> {
  listening ??= listen();
  const { origin } = await listening;
  const path = `/case-${++nextCase}/mcp`;
  const state: CaseState = {
    spec,
    record: { calls: [], answers: [] },
    sessions: new Map(),
    callResponses: new Map(),
    lists: 0,
    changed: false,
  };
  cases.set(path, state);
  return {
    url: `${origin}${path}`,
    record: state.record,
    async close() {
      cases.delete(path);
      for (const response of state.callResponses.values()) response.destroy();
      await Promise.all([...state.sessions.values()].map((transport) => transport.close().catch(() => {})));
    },
  };
}

/** Stops the shared endpoint, dropping open connections; the next case starts it again. */
export async function closeMcpFuzzServer(): Promise<void> {
  const started = listening;
  listening = undefined;
  if (!started) return;
  const { server } = await started;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function listen(): Promise<{ server: HttpServer; origin: string }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  // The endpoint never keeps a `pnpm fuzz` process alive on its own.
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const state = cases.get(req.url ?? "");
  if (!state) return void res.writeHead(404).end("no such case");
  let body: unknown;
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return void res.writeHead(400).end("not JSON");
    }
    const message = body as { method?: unknown; id?: unknown };
    const session = req.headers["mcp-session-id"];
    if (
      message.method === "tools/call" &&
      typeof session === "string" &&
      (typeof message.id === "string" || typeof message.id === "number")
    ) {
      const key = `${session} ${message.id}`;
      state.callResponses.set(key, res);
      res.on("close", () => state.callResponses.delete(key));
    }
  }
  const sessionId = req.headers["mcp-session-id"];
  const existing = typeof sessionId === "string" ? state.sessions.get(sessionId) : undefined;
  if (existing) return existing.handleRequest(req, res, body);
  if (typeof sessionId === "string") return void res.writeHead(404).end("unknown session");
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => void state.sessions.set(id, transport),
    onsessionclosed: (id) => void state.sessions.delete(id),
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withRawResult(message), options);
  await caseServer(state, transport).connect(transport);
  await transport.handleRequest(req, res, body);
}

/** The message with a generated result in place of the placeholder a handler returned. */
function withRawResult(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (!result || !(RAW_RESULT in result)) return message;
  return { ...message, result: result[RAW_RESULT] } as JSONRPCMessage;
}

function caseServer(state: CaseState, transport: StreamableHTTPServerTransport): Server {
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
    return { [RAW_RESULT]: listPage(state.spec.listing, tools, request.params?.cursor) } as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    state.record.calls.push(name);
    const tool = state.spec.tools.find((candidate) => candidate.entry.name === name);
    if (!tool) throw new McpError(-32602, `no tool ${name}`);
    for (const step of tool.steps) await runStep(state, step, request.params._meta?.progressToken, extra, transport);
    return answer(state, tool, transport, extra);
  });
  serveHostReads(server, state.spec.hostReads, (result) => ({ [RAW_RESULT]: result }) as never, never);
  return server;
}

/** One page of `tools/list` as `listing` says; throws the JSON-RPC error of the `error` listing. */
function listPage(listing: McpListing, tools: readonly unknown[], cursor: string | undefined): unknown {
  switch (listing) {
    case "one":
      return { tools };
    case "pages": {
      const page = cursor === undefined ? 0 : Number(cursor);
      return { tools: tools.slice(page, page + 1), ...(page + 1 < tools.length && { nextCursor: String(page + 1) }) };
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

type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

async function runStep(
  state: CaseState,
  step: McpCallStep,
  progressToken: string | number | undefined,
  extra: Extra,
  transport: StreamableHTTPServerTransport,
): Promise<void> {
  const answered = (result: unknown) => void state.record.answers.push(JSON.stringify(result) ?? "undefined");
  const failed = (error: unknown) =>
    void state.record.answers.push(error instanceof Error ? error.message : String(error));
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
      await extra
        .sendRequest(request as never, ResultSchema, { timeout: 5_000 })
        .then(answered, async (error: unknown) => {
          if (!(error instanceof Error) || !/does not support|not support/.test(error.message)) return failed(error);
          await transport.send({ jsonrpc: "2.0", id: `unasked-${++state.lists}`, ...request } as JSONRPCMessage, {
            relatedRequestId: extra.requestId,
          });
        });
      return;
    }
    case "raw":
      // A response to a request nobody made cannot be routed by the SDK's transport: it is not sent.
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

async function answer(
  state: CaseState,
  tool: McpFuzzTool,
  transport: StreamableHTTPServerTransport,
  extra: Extra,
): Promise<never> {
  const { end } = tool;
  switch (end.kind) {
    case "result":
      return { [RAW_RESULT]: end.result } as never;
    case "jsonRpcError":
      throw new McpError(end.code, end.message, end.data);
    case "throw":
      throw new Error("database is down");
    case "hang":
      return never(extra.signal);
    case "hangUp":
      state.callResponses.get(`${extra.sessionId} ${extra.requestId}`)?.socket?.destroy();
      return never(extra.signal);
    case "closeSession":
      if (transport.sessionId !== undefined) state.sessions.delete(transport.sessionId);
      await transport.close();
      return never(extra.signal);
    default: {
      const unreachable: never = end;
      return unreachable;
    }
  }
}

/** `message` with the call's request id wherever it says `$id`. */
function withCallId(message: unknown, id: string | number): unknown {
  return JSON.parse(JSON.stringify(message), (_key, value: unknown) => (value === "$id" ? id : value));
}

/** A promise that settles only when the client cancels the call (or the session closes). */
function never(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("cancelled"));
    signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
  });
}
