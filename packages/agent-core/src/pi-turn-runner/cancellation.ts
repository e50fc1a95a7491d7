import type { RunningTurn } from "./turn-state.js";

/**
 * Step 6 of a turn: the caller's `AbortSignal` becomes `agent.abort()`.
 * Returns the function that removes the listener again (the caller's
 * signal keeps no listener of an ended turn). A signal that fired already
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
  const onAbort = () => {
    turn.abortGrace.begin();
    turn.agent.abort();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** What a turn without a listener on the caller's signal unwires: nothing. */
function nothingToUnwire(): void {}
