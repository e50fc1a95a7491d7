import { httpStatusOf } from "./classify-mcp-failure.js";
import type { McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";

/**
 * Whether `failure`, an HTTP request of a session refused with a status,
 * means the server no longer knows the session, so that a new session may
 * send the request again: the server never ran it.
 *
 * A 404 says so, as the protocol reserves it for a forgotten session. A 400
 * may: servers written after the MCP SDK's long-standing examples answer a
 * session they do not know (they restarted) with 400 "No valid session ID
 * provided", and the SDK's own server transport answers 400 "Server not
 * initialized" after a restart; but a 400 may also refuse that one request
 * alone. So a 400 is checked with a `ping` on the same session: answered
 * (with a result or a JSON-RPC error), the session lives and the 400 was
 * the request's own; not answered (refused with a status, not in time, or
 * the connection lost because another request found the session gone and
 * it was replaced meanwhile), the session is gone. `live` is the
 * session's connection while it is current; without it a 400 counts as
 * forgotten at once, as nothing is left to check. Never rejects.
 */
export async function sessionForgotten(
  failure: McpServerError,
  live: McpConnection | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const status = httpStatusOf(failure);
  if (status === 404) return true;
  if (status !== 400) return false;
  if (live === undefined) return true;
  const answered = await live
    .request("ping", timeoutMs, [signal], (scoped) => live.client.ping({ signal: scoped, timeout: timeoutMs }))
    .then(
      () => true,
      (error: unknown) => McpServerError.isInstance(error) && error.code === McpServerErrorCode.ServerError,
    );
  return !answered;
}
