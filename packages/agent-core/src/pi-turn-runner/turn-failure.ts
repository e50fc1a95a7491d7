import { ErrorCode, type TurnError } from "@turnkit/protocol";
import type { TurnState } from "./turn-state.js";

/** A failure that decides the turn's outcome, thrown into the loop so it records an error response. */
export class TurnFailure extends Error {
  constructor(readonly turnError: TurnError) {
    super(turnError.message);
    this.name = "TurnFailure";
  }
}

/**
 * Records the turn's first failure (later ones are ignored: the first
 * decides the outcome), reports it as a `debug.trace` error and to the
 * logger, and asks the turn to stop after the current step. With `abort`,
 * stops the Agent's run too (when there is one yet).
 */
export function failTurn(turn: TurnState, error: TurnError, abort = false): void {
  const first = !turn.failure;
  if (first) turn.failure = error;
  turn.stopRequested = true;
  if (abort) {
    turn.abortGrace.begin();
    turn.agent?.abort();
  }
  // Reported last: what the turn does never depends on a trace or a log sink.
  if (first && !turn.settled) {
    turn.bridge.trace("turn", "error", error.message, { code: error.code });
    turn.defaults.logger.error(error.message, {
      code: error.code,
      sessionId: turn.input.sessionId,
      turnId: turn.input.turnId,
    });
  }
}

/** Fails the turn with code `hook` and returns the error to throw into the loop. */
export function hookFailure(turn: TurnState, message: string): TurnFailure {
  const error = { code: ErrorCode.Hook, message };
  failTurn(turn, error);
  return new TurnFailure(error);
}
