import type { TraceLevel } from "@turnkit/protocol";
import type { GuardedLogger } from "./guarded-logger.js";
import type { TurnState } from "./turn-state.js";

/**
 * Which logger method hears a trace of each level. The logger has no `info`,
 * so detail goes to `debug`; `error` is for a failed turn (`failTurn`), so
 * an error the turn survives (a failing step-end hook, a blocked call) is a
 * `warn`.
 */
const LOG_METHOD: Record<TraceLevel, keyof GuardedLogger> = {
  debug: "debug",
  info: "debug",
  warn: "warn",
  error: "warn",
};

/**
 * Reports something the runner has to say twice: as a `debug.trace` event
 * (unless the turn has settled: nothing is emitted after the terminal
 * status) and to the host's logger at the matching level, with the turn's
 * ids. Never throws.
 */
export function reportTrace(
  turn: TurnState,
  phase: string,
  level: TraceLevel,
  message: string,
  attrs?: Record<string, unknown>,
): void {
  if (!turn.settled) turn.bridge.trace(phase, level, message, attrs);
  turn.defaults.logger[LOG_METHOD[level]](message, {
    phase,
    ...attrs,
    sessionId: turn.input.sessionId,
    turnId: turn.input.turnId,
  });
}
