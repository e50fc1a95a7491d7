import type { AssembledTurn } from "./assembled-turn.js";
import { assembleTurnFromRegistry } from "./assemble-turn.js";
import { EnabledState } from "./enabled-state.js";
import { assertOptionsObject } from "./extension-config-error.js";
import { Registry } from "./registry.js";
import { type ResolveExtensionsOptions, resolveExtensions } from "./resolve-extensions.js";
import { ToolsInUse } from "./tools-in-use.js";
import type { TurnContext } from "./turn-context.js";

/** What `createAgentRuntime` takes: the same as `resolveExtensions`. */
export type AgentRuntimeOptions = ResolveExtensionsOptions;

/** Scope of an enabled-state switch: global when `sessionId` is absent. */
export interface EnabledScope {
  /** The session whose override is set or read; absent means the global switch. */
  readonly sessionId?: string;
}

/**
 * A host's extensions, resolved and initialised, ready to assemble turns.
 * Holds the enabled state (global switches and per-session overrides) and
 * the tool names each extension had in its last assembled turn
 * (`ToolsInUse`), nothing else per turn: concurrent `assembleTurn` calls
 * are independent.
 */
export interface AgentRuntime {
  /** The resolved extension ids, in order (after the profile overlay). */
  readonly extensions: readonly string[];
  /**
   * Builds one turn's contributions. The enabled state is
   * snapshotted synchronously, when this method is called and before
   * anything is awaited: `setEnabled` calls made while the assembly awaits
   * a slow factory or provider affect only later assemblies.
   * A tool name two extensions share only since one's tool list changed
   * (an MCP server added a tool) leaves the newcomer out with a warning
   * instead of rejecting. Waits for every contribution: one that never
   * settles holds the assembly (no timeout applies; a host that needs one
   * races the call with its own timer). Rejects as described at
   * `assembleTurnFromRegistry`.
   */
  assembleTurn(ctx: TurnContext): Promise<AssembledTurn>;
  /**
   * Turns extension `id` on or off, for every session (no `sessionId`) or
   * for one session. A session's override always wins over the global
   * switch, whichever was set last. Throws `invalid_extension_id` for an id
   * not in `extensions`.
   */
  setEnabled(id: string, enabled: boolean, scope?: EnabledScope): void;
  /** Whether `id` is on for the session (its override, else the global switch), or globally. Throws for an unknown id. */
  isEnabled(id: string, scope?: EnabledScope): boolean;
  /** Forgets every per-session override of `sessionId` (call it when a session ends, so overrides do not pile up). */
  clearSessionOverrides(sessionId: string): void;
  /**
   * Releases what the extensions hold: runs every `api.onDispose` handler
   * once (enabled or not), in reverse extension order, each awaited. Call it
   * when the host shuts down; a second call returns the same promise. Every
   * handler runs even when one fails; the promise then rejects with
   * `ExtensionContributionError` (`dispose`) naming the first that failed.
   * Assembling turns afterwards is the extensions' business (an extension
   * holding a connection refuses to contribute).
   */
  dispose(): Promise<void>;
}

/**
 * Resolves the profile overlay, initialises every extension and returns the
 * runtime. All extensions start enabled.
 *
 * Rejects (never throws synchronously) with `ExtensionConfigError`:
 * `invalid_extension_id` for unknown, duplicate or conflicting ids (see
 * `resolveExtensions`), before any init runs; `extension_init` when an
 * extension's init throws or rejects (named, original error as `cause`) or
 * misuses its API. A runtime that resolved is fully initialised: there is
 * no half-ready state to check.
 */
export async function createAgentRuntime(options: AgentRuntimeOptions): Promise<AgentRuntime> {
  assertOptionsObject(options, "createAgentRuntime");
  const extensions = resolveExtensions(options);
  const registry = await Registry.initialize(extensions, { params: options.profile?.params });
  const ids = Object.freeze([...registry.ids]);
  const enabled = new EnabledState(ids);
  const toolsInUse = new ToolsInUse();
  return {
    extensions: ids,
    assembleTurn(ctx) {
      // Snapshot first, synchronously, before the assembly awaits anything.
      const snapshot = enabled.snapshot(sessionIdOf(ctx));
      return assembleTurnFromRegistry(registry, snapshot, ctx, toolsInUse);
    },
    setEnabled(id, on, scope) {
      enabled.set(id, on, scope?.sessionId);
    },
    isEnabled(id, scope) {
      return enabled.get(id, scope?.sessionId);
    },
    clearSessionOverrides(sessionId) {
      enabled.clearSession(sessionId);
    },
    dispose() {
      return registry.dispose();
    },
  };
}

function sessionIdOf(ctx: TurnContext): string {
  // A malformed or unreadable ctx is reported by the assembly itself (a rejection); here it only selects overrides.
  try {
    return typeof ctx === "object" && ctx !== null && typeof ctx.sessionId === "string" ? ctx.sessionId : "";
  } catch {
    return "";
  }
}
