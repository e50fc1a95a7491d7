import type { McpServerStatus } from "./mcp-status.js";

/**
 * Who receives a server's statuses: the `onStatus` option and every
 * `subscribe` listener. A listener that throws is ignored: the server's
 * lifecycle never depends on it.
 */
export class StatusListeners {
  private readonly listeners = new Set<(status: McpServerStatus) => void>();

  constructor(private readonly onStatus: ((status: McpServerStatus) => void) | undefined) {}

  /** Adds `listener` until the returned function is called. */
  add(listener: (status: McpServerStatus) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Gives `status` to every listener, `onStatus` first. */
  emit(status: McpServerStatus): void {
    for (const listener of [this.onStatus, ...this.listeners]) {
      try {
        listener?.(status);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
