/**
 * Which tool names each extension had in its last assembled turn: the
 * memory that tells a tool an extension has had all along from one it has
 * just added (a newcomer), so that a name clash appearing in the middle of
 * a session (an MCP server whose tool list changed) leaves the newcomer out
 * instead of failing every later turn. `createAgentRuntime` keeps one for
 * the runtime's life; a host composing its own runtime passes one to
 * `assembleTurnFromRegistry`.
 *
 * Holds one set of names per extension that has been assembled, never
 * more: each assembly replaces its extensions' sets.
 */
export class ToolsInUse {
  readonly #namesByExtension = new Map<string, ReadonlySet<string>>();

  /**
   * True when extension `extensionId` has been assembled before and its last
   * assembled turn had no tool `name` (it did not have it, or it was left
   * out). At an extension's first assembly nothing is a newcomer.
   */
  isNewcomer(extensionId: string, name: string): boolean {
    const names = this.#namesByExtension.get(extensionId);
    return names !== undefined && !names.has(name);
  }

  /** Remembers `names` as the tools extension `extensionId` has in the turn just assembled. */
  record(extensionId: string, names: readonly string[]): void {
    this.#namesByExtension.set(extensionId, new Set(names));
  }
}
