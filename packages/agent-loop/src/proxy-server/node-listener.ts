import type { IncomingMessage, ServerResponse } from "node:http";

/** A `node:http` request listener, as `http.createServer(listener)` takes it. */
export type NodeRequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Adapts a web-standard handler (such as `createStreamProxyHandler`'s) to
 * `node:http`: the incoming request becomes a `Request` (its body streamed,
 * not buffered) and the `Response` is written back chunk by chunk, waiting
 * for the socket to drain. When the client disconnects before the response
 * is complete, the `Request`'s `signal` aborts and the response body is
 * cancelled, so a proxied provider request is aborted too. If the handler
 * rejects, the client gets a 500 (or, mid-response, a closed connection);
 * the listener itself never throws.
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>): NodeRequestListener {
  return (incoming, outgoing) => {
    serve(handler, incoming, outgoing).catch(() => outgoing.destroy());
  };
}

async function serve(
  handler: (request: Request) => Promise<Response>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const disconnected = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) disconnected.abort();
  });
  let response: Response;
  try {
    response = await handler(toWebRequest(incoming, disconnected.signal));
  } catch {
    if (!outgoing.headersSent && !outgoing.destroyed)
      outgoing
        .writeHead(500, { "content-type": "application/json" })
        .end('{"error":"Proxy server error","code":"internal"}');
    return;
  }
  if (disconnected.signal.aborted) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  outgoing.writeHead(response.status, headers);
  outgoing.flushHeaders();
  if (!response.body) {
    outgoing.end();
    return;
  }
  await writeBody(response.body, outgoing, disconnected.signal);
}

function toWebRequest(incoming: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const entry of value) headers.append(name, entry);
    else if (value !== undefined) headers.set(name, value);
  }
  const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`);
  const method = incoming.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    signal,
    body: hasBody ? bodyStream(incoming) : undefined,
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

/**
 * The request body as a web stream that reads only as fast as it is
 * consumed. Cancelling it (a handler that refuses a too-large body) discards
 * the rest instead of destroying the socket, so the refusal still reaches
 * the client.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.pause();
      incoming.on("data", (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.once("end", () => {
        if (!settled) controller.close();
        settled = true;
      });
      incoming.once("error", (error) => {
        if (!settled) controller.error(error);
        settled = true;
      });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      settled = true;
      incoming.resume();
    },
  });
}

async function writeBody(
  body: ReadableStream<Uint8Array>,
  outgoing: ServerResponse,
  disconnected: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  disconnected.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || disconnected.aborted) break;
      if (!outgoing.write(value)) await drained(outgoing);
    }
    if (!disconnected.aborted) outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    disconnected.removeEventListener("abort", cancel);
  }
}

function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}
