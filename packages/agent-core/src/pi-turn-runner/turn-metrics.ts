import type { TurnState } from "./turn-state.js";

/**
 * Hands one measurement to the runner's metrics sink, tagged with the
 * session. A failing sink never affects the turn. Callers check for a sink
 * first, so a runner without one builds no measurement.
 */
export function recordMetric(turn: TurnState, name: string, value: number, attrs: Record<string, string>): void {
  try {
    turn.defaults.metrics?.({ name, value, attrs: { sessionId: turn.input.sessionId, ...attrs } });
  } catch {
    // Metrics never affect a turn.
  }
}
