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
