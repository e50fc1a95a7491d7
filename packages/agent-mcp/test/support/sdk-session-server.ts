import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { serveForTest } from "./test-http-server.js";

/** What a server with sessions on the SDK's Streamable HTTP transport is made of (see {@link serveSdkSessions}). */
export interface SdkSessionServer {
  /** Gives a new session's transport to a new server of the test's (`server.connect(transport)`). */
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  /** The new sessions' transport options, besides their ids (random UUIDs). */
  transport?: Omit<StreamableHTTPServerTransportOptions, "sessionIdGenerator" | "onsessioninitialized">;
  /** Sees every request first, as it comes in. */
  onRequest?(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * Serves SDK servers with sessions on 127.0.0.1 until the current test
 * ends (see `serveForTest`): a request naming a session the server made
 * goes to that session's transport; any other starts a session, with a
 * new transport and server. Resolves with the server's origin.
 */
export function serveSdkSessions(server: SdkSessionServer): Promise<string> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return serveForTest(async (req, res) => {
    server.onRequest?.(req, res);
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      ...server.transport,
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
}
