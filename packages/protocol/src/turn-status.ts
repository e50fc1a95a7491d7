/**
 * The state of a turn as reported by `session.status` events.
 *
 * A turn reports `running` first, then exactly one terminal status
 * (`completed`, `aborted` or `failed`) as its last event.
 */
export type TurnStatus = "running" | "completed" | "aborted" | "failed";

/** A {@link TurnStatus} after which the turn emits nothing more. */
export type TerminalTurnStatus = Exclude<TurnStatus, "running">;

/** Every {@link TurnStatus}, in lifecycle order. */
export const TURN_STATUSES: readonly TurnStatus[] = Object.freeze([
  "running",
  "completed",
  "aborted",
  "failed",
] as const);

/** The terminal statuses: a turn ends with exactly one of them. */
export const TERMINAL_STATUSES: readonly TerminalTurnStatus[] = Object.freeze([
  "completed",
  "aborted",
  "failed",
] as const);

/** True when `status` is a terminal status (`completed`, `aborted` or `failed`); false for anything else. */
export function isTerminalStatus(status: string): status is TerminalTurnStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}
