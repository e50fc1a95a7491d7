import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStaleSocketFailure } from "./classify-mcp-failure.js";
import { STALE_SOCKET_RETRIES, STALE_SOCKET_WINDOW_MS } from "./defaults.js";

/**
 * A `fetch` that sends a request again, at once, when the server closed
 * its socket before any answer came ("other side closed"): the keep-alive
 * race of a pooled socket the server had closed (it restarted, or shut an
 * idle connection) before the client saw it close. Such a socket fails at
 * once: only a failure within `STALE_SOCKET_WINDOW_MS` of sending is sent
 * again (a socket a proxy or a dying server closed while it ran the request
 * is the caller's failure: the request ran). Each failure drops one such
 * socket; after `STALE_SOCKET_RETRIES` more, the failure stands. Without it,
 * the first request after a server restart fails as unreachable and loses
 * the session, instead of meeting the restarted server (which then says
 * whether it forgot the session).
 *
 * Safe for a server that answers an event stream: its response headers
 * come before any handler runs, so a request whose socket closed before
 * them never ran. A server in JSON response mode that dies within the
 * window while running a request, before answering anything, may see that
 * request again.
 * Every other failure is the caller's.
 */
export function fetchRetryingStaleSockets(base: FetchLike): FetchLike {
  return async (url, init) => {
    for (let retry = 0; ; retry++) {
      const sent = Date.now();
      try {
        return await base(url, init);
      } catch (error) {
        const stale = isStaleSocketFailure(error) && Date.now() - sent <= STALE_SOCKET_WINDOW_MS;
        if (retry === STALE_SOCKET_RETRIES || !stale || init?.signal?.aborted) throw error;
      }
    }
  };
}
