import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStaleSocketFailure } from "./classify-mcp-failure.js";
import { STALE_SOCKET_RETRIES } from "./defaults.js";

/**
 * A `fetch` that sends a request again, at once, when the server closed
 * its socket before any answer came ("other side closed"): the keep-alive
 * race of a pooled socket the server had closed (it restarted, or shut an
 * idle connection) before the client saw it close. Each failure drops one
 * such socket; after `STALE_SOCKET_RETRIES` more, the failure stands. Without it,
 * the first request after a server restart fails as unreachable and loses
 * the session, instead of meeting the restarted server (which then says
 * whether it forgot the session).
 *
 * Safe for a server that answers an event stream: its response headers
 * come before any handler runs, so a request whose socket closed before
 * them never ran. A server in JSON response mode that dies while running a
 * request, before answering anything, may see that request twice.
 * Every other failure is the caller's.
 */
export function fetchRetryingStaleSockets(base: FetchLike): FetchLike {
  return async (url, init) => {
    for (let retry = 0; ; retry++) {
      try {
        return await base(url, init);
      } catch (error) {
        if (retry === STALE_SOCKET_RETRIES || !isStaleSocketFailure(error) || init?.signal?.aborted) throw error;
      }
    }
  };
}
