import { onAbort } from "@turnkit/agent-loop/internal";
import type { RunningTurn } from "./turn-state.js";

/**
 * Step 6 of a turn: the caller's `AbortSignal` becomes `agent.abort()`.
 * Returns the function that stops listening again (the caller's signal
 * keeps nothing of an ended turn). The turn listens through the signal's
 * one shared listener, so any number of turns may share one signal. A signal that fired already
 * marks the turn cancelled before start: the Agent never runs. Either way
 * the abort begins the turn's shared abort grace.
 */
export function wireCancellation(turn: RunningTurn): () => void {
  const signal = turn.input.signal;
  if (!signal) return nothingToUnwire;
  if (signal.aborted) {
    turn.cancelledBeforeStart = true;
    turn.abortGrace.begin();
    return nothingToUnwire;
  }
  return onAbort(signal, () => {
    turn.abortGrace.begin();
    turn.agent.abort();
  });
}

/** What a turn without a listener on the caller's signal unwires: nothing. */
function nothingToUnwire(): void {}
