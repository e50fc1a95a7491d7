import type { McpToolCallRequest } from "./mcp-tool.js";

/**
 * Whether the server waits for the host: while the host serves a request
 * the server made during its calls (sampling, elicitation), the server
 * cannot answer them, so their `callTimeoutMs` does not run.
 */
export interface HostWaits {
  /** `watcher(true)` when the host starts serving (at once if it is), `watcher(false)` when it is done; until the returned function is called. */
  watch(watcher: (waiting: boolean) => void): () => void;
}

/**
 * The server's tool calls running now, in the order they started. A server
 * request made during a call (sampling, elicitation) says nothing of the
 * call it belongs to over stdio, so it is served for the one turn whose
 * calls are running, and refused when calls of several turns run (rather
 * than charged to, or asked in, the wrong turn).
 */
export class CallsInFlight implements HostWaits {
  private readonly calls = new Set<McpToolCallRequest>();
  /** Requests of the server the host is serving now (a question to a person, a model request). */
  private serving = 0;
  private readonly watchers = new Set<(waiting: boolean) => void>();

  /**
   * Runs `work`, which serves a request the server made during a call; the
   * calls' `callTimeoutMs` waits meanwhile (see {@link HostWaits}).
   */
  async serve<T>(work: () => Promise<T>): Promise<T> {
    if (this.serving++ === 0) this.tell(true);
    try {
      return await work();
    } finally {
      if (--this.serving === 0) this.tell(false);
    }
  }

  /** See {@link HostWaits.watch}. */
  watch(watcher: (waiting: boolean) => void): () => void {
    this.watchers.add(watcher);
    if (this.serving > 0) watcher(true);
    return () => void this.watchers.delete(watcher);
  }

  private tell(waiting: boolean): void {
    for (const watcher of this.watchers) watcher(waiting);
  }

  /** A call is in flight until the returned function is called. */
  track(call: McpToolCallRequest): () => void {
    this.calls.add(call);
    return () => void this.calls.delete(call);
  }

  /**
   * The running calls when they all belong to one turn (oldest first), or
   * why not: `"none"` (no call runs) or `"several turns"`.
   */
  ofOneTurn(): { calls: McpToolCallRequest[] } | { refused: "none" | "several turns" } {
    const calls = [...this.calls];
    const keys = new Set(calls.map((call) => turnKey(call.ctx)));
    if (keys.size === 0) return { refused: "none" };
    if (keys.size > 1) return { refused: "several turns" };
    return { calls };
  }
}

/** One string per turn, for maps keyed by turn. */
export function turnKey(turn: { sessionId: string; turnId: string }): string {
  return `${turn.sessionId}\u0000${turn.turnId}`;
}
