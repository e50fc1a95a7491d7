import type { TurnOutcome } from "@turnkit/protocol";

/**
 * What the host tells `assembleTurn` about the turn being built. Every
 * per-turn contribution (tool factories, prompt and reminder providers) and
 * every hook handler of an extension receives it as `ctx`.
 *
 * The runtime hands extensions a frozen shallow copy: an extension cannot
 * change what another one sees. `data` is the host's own, passed through
 * untouched (workspace, user, plan mode, ...).
 */
export interface TurnContext {
  /** The host session; per-session `setEnabled` overrides are looked up by it. */
  readonly sessionId: string;
  /** The turn (one `runTurn()`) being assembled. */
  readonly turnId: string;
  /** Host data for extensions; the runtime never reads it. */
  readonly data?: Readonly<Record<string, unknown>>;
}

/** What a `turn_end` handler receives: how the turn ended. */
export interface TurnEndEvent {
  /** The outcome `runTurn` resolved to; exactly one per turn. */
  readonly outcome: TurnOutcome;
}
