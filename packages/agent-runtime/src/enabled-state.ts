import { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";

/**
 * Which of a runtime's extensions are on: a global switch per extension
 * (all on at first) and per-session overrides, which always win over the
 * global switch. Internal to `createAgentRuntime`.
 */
export class EnabledState {
  private readonly global = new Map<string, boolean>();
  private readonly sessions = new Map<string, Map<string, boolean>>();

  constructor(private readonly ids: readonly string[]) {
    for (const id of ids) this.global.set(id, true);
  }

  /** Sets the global switch, or the override of `sessionId`. Throws `invalid_extension_id` for an id not in the runtime. */
  set(id: string, enabled: boolean, sessionId: string | undefined): void {
    this.assertKnown(id, "setEnabled");
    if (typeof enabled !== "boolean") {
      throw new TypeError(`setEnabled("${id}", ...): enabled must be a boolean, got ${typeof enabled}`);
    }
    if (sessionId === undefined) {
      this.global.set(id, enabled);
      return;
    }
    let overrides = this.sessions.get(sessionId);
    if (!overrides) this.sessions.set(sessionId, (overrides = new Map()));
    overrides.set(id, enabled);
  }

  /** The effective state of `id` for `sessionId` (override first, then global). */
  get(id: string, sessionId: string | undefined): boolean {
    this.assertKnown(id, "isEnabled");
    return this.effective(id, sessionId);
  }

  /** The ids on for `sessionId`, in runtime order. Synchronous: this is the assembly's snapshot. */
  snapshot(sessionId: string): string[] {
    return this.ids.filter((id) => this.effective(id, sessionId));
  }

  /** Drops every override of `sessionId`. */
  clearSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  private effective(id: string, sessionId: string | undefined): boolean {
    const override = sessionId === undefined ? undefined : this.sessions.get(sessionId)?.get(id);
    return override ?? this.global.get(id) ?? false;
  }

  private assertKnown(id: string, method: string): void {
    if (this.global.has(id)) return;
    const known = this.ids.length > 0 ? this.ids.map((known) => `"${known}"`).join(", ") : "none";
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.InvalidExtensionId,
      `${method}: unknown extension "${id}"; this runtime's extensions are ${known}`,
    );
  }
}
