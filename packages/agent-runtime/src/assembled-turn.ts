import type { PiTurnHooks, RuntimeTool } from "@turnkit/agent-core";
import type { ExtensionDegradedWarning } from "@turnkit/protocol";
import type { BoundTurnEndHandler, BoundTurnStartHandler, ExtensionEventName } from "./extension-events.js";
import type { KeptTools } from "./kept-tools.js";
import type { LeftOutTool } from "./tool-clashes.js";
import type { TurnContext } from "./turn-context.js";

/** One reminder of an assembled turn. */
export interface AssembledReminder {
  /** The extension whose provider produced it. */
  readonly extensionId: string;
  /** The provider's id within that extension. */
  readonly providerId: string;
  /** The provider's resolved priority; `AssembledTurn.reminders` is sorted by it. */
  readonly priority: number;
  /** Exactly one `<system-reminder>…</system-reminder>` block. */
  readonly text: string;
}

/** What one enabled extension contributed to one turn. */
export interface ExtensionContributionSummary {
  /** The extension summarised. */
  readonly extensionId: string;
  /** Names of its tools in this turn (static and from factories), without those left out. */
  readonly tools: readonly string[];
  /**
   * The names of `tools` its tool factories made this turn (the rest are
   * static): `toRunTurnInput` leaves these out, not the host's, when a host
   * tool has the same name.
   */
  readonly factoryTools: readonly string[];
  /** How many non-empty parts it added to the system-prompt prefix. */
  readonly systemPromptParts: number;
  /** How many non-empty parts it added to the user-prompt prefix. */
  readonly userPromptPrefixParts: number;
  /** Ids of its reminder providers that produced text this turn. */
  readonly reminders: readonly string[];
  /** Handler count per event it subscribed to (events without handlers omitted). */
  readonly hooks: Readonly<Partial<Record<ExtensionEventName, number>>>;
}

/**
 * Which extension contributed what to a turn: for logs, debugging and
 * "why did the model see this?" questions. Never needed to run the turn.
 */
export interface AssemblyDiagnostic {
  /** Extensions on in this turn's snapshot, in order. */
  readonly enabled: readonly string[];
  /** Extensions of the runtime that were off for this turn. */
  readonly disabled: readonly string[];
  /** One entry per enabled extension, in order, including those that contributed nothing. */
  readonly contributions: readonly ExtensionContributionSummary[];
  /**
   * Tools left out of this turn because another extension keeps their name
   * (a newcomer to a name already in use), each also an `extension_degraded`
   * warning of the turn; empty when there was no clash.
   */
  readonly leftOut: readonly LeftOutTool[];
}

/**
 * Everything the enabled extensions contributed to one turn.
 * Combine it with the host's inputs with `toRunTurnInput`.
 */
export interface AssembledTurn {
  /** The (frozen) context the turn was assembled for; extensions saw this object. */
  readonly context: TurnContext;
  /** System-prompt parts, in extension order, joined by blank lines; `""` when none. */
  readonly systemPromptPrefix: string;
  /** User-prompt-prefix parts, in extension order, joined by blank lines; `""` when none. */
  readonly userPromptPrefix: string;
  /** Tools, in extension order, names unique (a clash's newcomer left out: `diagnostic.leftOut`). */
  readonly tools: readonly RuntimeTool[];
  /** Reminders by ascending priority (stable: extension order, then registration order). */
  readonly reminders: readonly AssembledReminder[];
  /**
   * What extensions cannot provide to this turn (`extension_degraded`
   * warnings, extension order, then registration order, then one per tool
   * left out by a name clash); `toRunTurnInput`
   * passes them on, and the turn emits them when it starts.
   */
  readonly warnings: readonly ExtensionDegradedWarning[];
  /**
   * Extension handlers adapted to agent-core hooks by `HOOK_MAPPINGS`: each
   * present field is an array in extension order; fields without handlers
   * are absent. `onToolExecutionStartHook` is never set.
   */
  readonly hooks: PiTurnHooks;
  /** `turn_start` handlers with `ctx` bound, in extension order; the host awaits them before `runTurn` (nothing bounds one that never settles: `hookTimeoutMs` covers runner hooks only). */
  readonly turnStartHandlers: readonly BoundTurnStartHandler[];
  /** `turn_end` handlers with `ctx` bound, in extension order; the host awaits them with the outcome. */
  readonly turnEndHandlers: readonly BoundTurnEndHandler[];
  /** Which extension contributed what; for logs and debugging, never needed to run the turn. */
  readonly diagnostic: AssemblyDiagnostic;
  /**
   * Where the assembly recorded which tools each extension kept (what
   * `api.keptTools(ctx)` reads): `toRunTurnInput` records there the tools
   * of an extension that a host tool leaves out, so an extension never
   * describes a host tool as its own. Absent on a turn a host put together
   * itself.
   */
  readonly keptTools?: KeptTools;
}
