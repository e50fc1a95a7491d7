import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

/**
 * Serves `handle` on 127.0.0.1 (a free port) until the current test ends,
 * then drops every open connection and closes the server. A handler that
 * rejects has its connection destroyed. Resolves with the server's origin,
 * `http://127.0.0.1:PORT`. Call it inside a test.
 */
export async function serveForTest(
  handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<string> {
  const http = createServer((req, res) => {
    Promise.resolve()
      .then(() => handle(req, res))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  onTestFinished(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

/** A JSON-RPC message as a client POSTs it to a hand-written server. */
export interface PostedMessage {
  id?: number | string;
  method?: string;
  params?: { protocolVersion?: string; [name: string]: unknown };
}

/** The body of `req`, read whole and parsed as JSON: the message a client POSTed. */
export async function readPostedMessage(req: IncomingMessage): Promise<PostedMessage> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** A server's answer to `initialize`: the protocol version the client asked for, tools, and `name` as the server's. */
export function initializeResult(request: PostedMessage, name: string) {
  return {
    protocolVersion: request.params?.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name, version: "1" },
  };
}
