import type { ServerListKind } from "./mcp-connection.js";

/**
 * Which of the server's lists it announced a change of
 * (`notifications/<kind>/list_changed`) since they were last fetched.
 * `changed` is called whenever a flag changes (the status changed).
 */
export class OutdatedLists {
  private readonly flags: Record<ServerListKind, boolean> = { tools: false, resources: false, prompts: false };

  constructor(private readonly changed: () => void) {}

  /** Whether the `kind` list changed since it was last fetched. */
  has(kind: ServerListKind): boolean {
    return this.flags[kind];
  }

  /** Sets the flag of `kind` (`true`: the server announced a change). */
  set(kind: ServerListKind, outdated: boolean): void {
    if (this.flags[kind] === outdated) return;
    this.flags[kind] = outdated;
    this.changed();
  }

  /**
   * Runs `fetch`, which fetches the `kind` list: the list is no longer
   * outdated from the moment the fetch starts, so a change the server
   * announces while it runs (the answer may not have it) keeps it outdated.
   * A fetch that fails leaves it as outdated as it was.
   */
  async fetching<T>(kind: ServerListKind, fetch: () => Promise<T>): Promise<T> {
    const before = this.flags[kind];
    this.set(kind, false);
    try {
      return await fetch();
    } catch (error) {
      if (before) this.set(kind, true);
      throw error;
    }
  }
}
