import { onAbort } from "@turnkit/agent-loop/internal";

/**
 * Runs `operation` with a signal that follows `parents` only while the
 * operation runs: it fires when any of them fires (with that one's reason).
 * The MCP SDK keeps its abort listener on a request's signal after the
 * request settled, and would send `notifications/cancelled` for a
 * long-finished request when that signal fires later (a turn aborted after
 * the call returned, a dispose after the handshake); it would also pile up
 * listeners on a long-lived signal. The scoped signal is dropped afterwards,
 * with the SDK's listener on it.
 */
export async function withScopedSignal<T>(
  parents: readonly AbortSignal[],
  operation: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const scoped = new AbortController();
  const follows = parents.map((parent) => {
    const follow = () => scoped.abort(parent.reason);
    if (parent.aborted) follow();
    // One listener per parent however many operations follow it (a turn's many calls, a host's shared signal).
    return onAbort(parent, follow);
  });
  try {
    return await operation(scoped.signal);
  } finally {
    for (const unfollow of follows) unfollow();
  }
}
