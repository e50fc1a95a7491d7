import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * A `fetch` for the Streamable HTTP client transport that closes the POST
 * of a request the client cancelled (`notifications/cancelled`: a turn
 * aborted, a call timed out).
 *
 * A server does not answer a cancelled request (the protocol says it
 * should not), so its answer stream, or the JSON answer it holds back,
 * would stay open for the session's life, and past the host's dispose: a
 * socket on both sides for every cancelled call. A server with a session
 * gets the notification first, and then its POST is closed. A stateless
 * server (one that gave no session id) holds nothing between HTTP
 * requests: the notification arrives in a new POST, at a server that never
 * saw the request it names, while the handler of that request keeps
 * running behind the POST that carries it. The only way to tell that
 * handler is to close its POST, which is what a stateless server watches
 * (the MCP SDK's stateless example closes its transport when the request's
 * connection closes, and that aborts the handler's signal): there the POST
 * is closed first, and then the notification is sent as usual. The client
 * reads a POST closed that way as an answer stream that ended: never as a
 * broken connection (and `fetchEndingUnansweredStreams` does not resume it).
 *
 * Bodies that are not one JSON-RPC message (OAuth requests, batches) pass
 * through untouched, and a request is forgotten as soon as its answer was
 * read.
 */
export function fetchClosingCancelledRequests(stateless: () => boolean, base?: FetchLike): FetchLike {
  /** The requests whose POST is still open, by JSON-RPC id. */
  const open = new Map<string | number, () => void>();
  return async (url, init) => {
    const send = base ?? fetch;
    const message = init?.method === "POST" ? oneMessage(init.body) : undefined;
    if (message?.method === "notifications/cancelled") {
      const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
      const close = typeof cancelled === "string" || typeof cancelled === "number" ? open.get(cancelled) : undefined;
      if (close === undefined) return send(url, init);
      if (stateless()) {
        close();
        return send(url, init);
      }
      // A session's server learns of the cancellation from the notification: it goes first.
      try {
        return await send(url, init);
      } finally {
        close();
      }
    }
    const id = message?.id;
    if (message?.method === undefined || (typeof id !== "string" && typeof id !== "number")) return send(url, init);

    // The POST ends when the transport closes (its own signal) or when the request is cancelled (then on purpose).
    const closing = new AbortController();
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      closing.abort();
    };
    const transport = init?.signal ?? undefined;
    const follow = () => closing.abort(transport?.reason);
    if (transport?.aborted) follow();
    else transport?.addEventListener("abort", follow, { once: true });
    open.set(id, cancel);
    const forget = () => {
      transport?.removeEventListener("abort", follow);
      if (open.get(id) === cancel) open.delete(id);
    };
    let response: Response;
    try {
      response = await send(url, { ...init, signal: closing.signal });
    } catch (error) {
      forget();
      throw error;
    }
    if (response.status !== 200 || response.body === null) {
      forget();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            forget();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          forget();
          // Closed for a cancellation: the answer stream ended, nothing broke.
          if (cancelled) controller.close();
          else controller.error(error);
        }
      },
      cancel(reason) {
        forget();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The one JSON-RPC message a POST body holds, or `undefined` (not text, not JSON, a batch). */
function oneMessage(body: unknown): { method?: string; id?: unknown; params?: unknown } | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
