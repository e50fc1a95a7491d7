import { ABANDONED, errorText } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { awaitHostCall } from "./host-calls.js";
import { failTurn } from "./turn-failure.js";
import { type HistoryChange, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * Hands the history the host has not been given yet to every
 * `onHistoryChangedHook`, in order, then announces each change as
 * `message.persisted`; host messages in an accepted change count as
 * delivered. A hook that throws fails the turn (code `hook`), stops the
 * Agent and rethrows: history is never silently lost. A hook given up on
 * after the abort stops the chain: later hooks and later changes of this
 * delivery are not handed over (the turn is ending aborted). Once the turn
 * has settled, nothing is delivered.
 */
export async function deliverHistory(turn: RunningTurn): Promise<void> {
  if (turn.settled || turn.historyAbandoned) return;
  const changes = turn.cursor.take(turn.agent.state.messages);
  if (changes.length === 0) return;
  const hooks = hookArray(turn.hooks.onHistoryChangedHook);
  for (const change of changes) {
    for (const hook of hooks) {
      let accepted: void | typeof ABANDONED;
      try {
        accepted = await awaitHostCall(turn, "onHistoryChangedHook", () => hook(change, { sessionId: turn.input.sessionId, turnId: turn.input.turnId }));
      } catch (error) {
        // A host hook failed: code `hook` (ErrorCode), as for every other hook that fails a turn.
        failTurn(turn, { code: ErrorCode.Hook, message: `onHistoryChangedHook failed; history was not persisted: ${errorText(error)}` }, true);
        throw error;
      }
      if (accepted === ABANDONED) {
        turn.historyAbandoned = true;
        return;
      }
    }
    for (const message of change.messages) turn.undelivered.delete(message);
    turn.events.push("message.persisted", persistedPayload(change));
  }
}

function persistedPayload(change: HistoryChange) {
  return { reason: change.reason, messages: change.messages as never };
}
