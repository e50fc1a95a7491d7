import type { McpToolCallRequest } from "./mcp-tool.js";

/**
 * The server's tool calls running now, in the order they started. A server
 * request made during a call (sampling, elicitation) says nothing of the
 * call it belongs to over stdio, so it is served for the one turn whose
 * calls are running, and refused when calls of several turns run (rather
 * than charged to, or asked in, the wrong turn).
 */
export class CallsInFlight {
  private readonly calls = new Set<McpToolCallRequest>();

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
