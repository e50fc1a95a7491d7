/**
 * The `mcp-server` property's HTTP server: one Streamable HTTP endpoint on
 * 127.0.0.1 per process, started at the first case and reused, serving
 * each case at a path of its own with the case's server
 * (`mcp-case-server.ts`), a session per connection.
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  type CaseState,
  type CaseWire,
  type McpCaseRecord,
  caseServer,
  withStringCursor,
  never,
  withRawResult,
} from "./mcp-case-server.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import type { McpFuzzCase } from "./mcp-server-arbitraries.js";

export type { McpCaseRecord } from "./mcp-case-server.js";

/** A case being served: its endpoint and what its server saw. */
export interface ServedCase {
  readonly url: string;
  /** What the server saw so far. */
  record(): McpCaseRecord;
  /**
   * Throws an {@link InvariantViolation} when a call's POST, or a GET that
   * resumes a request's event stream (`Last-Event-ID` of a stream other
   * than the session's own), is open a few retry intervals from now: called
   * once every call has its result (answered, failed or cancelled), no
   * request's stream has anything to send.
   */
  checkNothingHeld(): Promise<void>;
  /**
   * Throws an {@link InvariantViolation} when the session's own stream was
   * asked for more than once a second (and a few) since the case began: a
   * case whose server ends it at once (`cutsSessionStream`) is no busy loop.
   */
  checkSessionStreamPaced(): void;
  /** Closes the case's sessions and stops serving its path. */
  close(): Promise<void>;
}

interface HttpCaseState extends CaseState {
  readonly sessions: Map<string, StreamableHTTPServerTransport>;
  /** The HTTP response of each `tools/call` in flight, by session and JSON-RPC id (to hang up on it). */
  readonly callResponses: Map<string, ServerResponse>;
  /** How many GETs opened (or resumed) the session's own stream. */
  sessionGets: number;
  /** The GETs open that resume a request's event stream, as `GET <last event id>` (see `checkNothingHeld`). */
  readonly resumptionsOpen: Set<string>;
}

/** The `retry` a server with an event store gives: how long the client waits before it resumes a stream. */
const RESUME_AFTER_MS = 10;

const cases = new Map<string, HttpCaseState>();
let listening: Promise<{ server: HttpServer; origin: string }> | undefined;
let nextCase = 0;

/** Serves `spec` at a path of its own on the shared endpoint (started on first use). */
export async function serveCase(spec: McpFuzzCase): Promise<ServedCase> {
  listening ??= listen();
  const { origin } = await listening;
  const path = `/case-${++nextCase}/mcp`;
  const record = { calls: [] as string[], answers: [] as string[], slowCalls: [] as string[] };
  const state: HttpCaseState = {
    spec,
    log: {
      called: (name) => void record.calls.push(name),
      answered: (text) => void record.answers.push(text),
      slow: (name) => void record.slowCalls.push(name),
    },
    sessions: new Map(),
    callResponses: new Map(),
    resumptionsOpen: new Set(),
    sessionGets: 0,
    lists: 0,
    changed: false,
  };
  cases.set(path, state);
  const began = Date.now();
  return {
    url: `${origin}${path}`,
    record: () => record,
    checkSessionStreamPaced() {
      const allowed = 3 + (Date.now() - began) / 1_000;
      if (state.sessionGets > allowed)
        throw new InvariantViolation(
          "the session's event stream is not opened again in a busy loop (at most once a second after an empty end)",
          `${state.sessionGets} GETs in ${Date.now() - began} ms`,
        );
    },
    async checkNothingHeld() {
      // A stream the client would resume is resumed a retry interval after it ended.
      await new Promise((resolve) => setTimeout(resolve, RESUME_AFTER_MS * 5));
      const held = [
        ...state.resumptionsOpen,
        ...[...state.callResponses.keys()].map((key) => `POST tools/call ${key}`),
      ];
      if (held.length > 0)
        throw new InvariantViolation(
          "no call's request or resumed event stream is held open once the turns are over (every call has its result)",
          describeValue(held),
        );
    },
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
  if (state.spec.oldSse) return serveOldSse(req, res);
  let body: unknown;
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      body = withStringCursor(JSON.parse(Buffer.concat(chunks).toString("utf8")));
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
  const resumedFrom = req.headers["last-event-id"];
  if (req.method === "GET" && (typeof resumedFrom !== "string" || resumedFrom.startsWith("_GET_stream"))) {
    state.sessionGets++;
    if (state.spec.cutsSessionStream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      return void res.end("retry: 0\n\n");
    }
  }
  // The event store's ids start with their stream's id; the session's own stream is "_GET_stream".
  if (req.method === "GET" && typeof resumedFrom === "string" && !resumedFrom.startsWith("_GET_stream")) {
    const key = `GET ${resumedFrom}`;
    state.resumptionsOpen.add(key);
    res.on("close", () => state.resumptionsOpen.delete(key));
  }
  const sessionId = req.headers["mcp-session-id"];
  const existing = typeof sessionId === "string" ? state.sessions.get(sessionId) : undefined;
  if (existing) return existing.handleRequest(req, res, body);
  if (typeof sessionId === "string") return void res.writeHead(404).end("unknown session");
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => void state.sessions.set(id, transport),
    onsessionclosed: (id) => void state.sessions.delete(id),
    ...(state.spec.eventStore && { eventStore: new InMemoryEventStore(), retryInterval: RESUME_AFTER_MS }),
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const { id } = message as { id?: unknown };
    // The SDK's transport finds an answer's stream by its own check of the message, which a generated answer may
    // fail (a Python-style `"error": null` beside its result): it would go to the GET stream, apart from its call's
    // notifications. Its request is named, so it goes on its request's stream as any answer does.
    const answering = "result" in message && (typeof id === "string" || typeof id === "number");
    return send(withRawResult(message), answering ? { ...options, relatedRequestId: id } : options);
  };
  await caseServer(state, httpWire(state, transport)).connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * A server of the old HTTP+SSE transport (protocol 2024-11-05) at the
 * case's URL: a GET opens an event stream naming its message endpoint (held
 * open until the client leaves), a POST is refused with 405, as its `/sse`
 * route refuses one.
 */
function serveOldSse(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET") return void res.writeHead(405, { "content-type": "text/plain" }).end("Method Not Allowed");
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  res.write(`event: endpoint\ndata: ${req.url}/messages/?session_id=fz\n\n`);
}

/** What only Streamable HTTP does: a call's socket destroyed, the whole session closed and forgotten. */
function httpWire(state: HttpCaseState, transport: StreamableHTTPServerTransport): CaseWire {
  return {
    transport,
    async endCall(kind, extra) {
      if (kind === "hangUp") {
        state.callResponses.get(`${extra.sessionId} ${extra.requestId}`)?.socket?.destroy();
        return never(extra.signal);
      }
      if (transport.sessionId !== undefined) state.sessions.delete(transport.sessionId);
      await transport.close();
      return never(extra.signal);
    },
  };
}
