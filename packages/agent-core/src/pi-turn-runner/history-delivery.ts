import { errorText } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { failTurn } from "./turn-failure.js";
import { type HistoryChange, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * Hands the history the host has not been given yet to every
 * `onHistoryChangedHook`, in order, then announces each change as
 * `message.persisted`. A hook that throws fails the turn (code `hook`),
 * stops the Agent and rethrows: history is never silently lost.
 */
export async function deliverHistory(turn: RunningTurn): Promise<void> {
  const changes = turn.cursor.take(turn.agent.state.messages);
  if (changes.length === 0) return;
  const hooks = hookArray(turn.hooks.onHistoryChangedHook);
  for (const change of changes) {
    for (const hook of hooks) {
      try {
        await hook(change, { sessionId: turn.input.sessionId, turnId: turn.input.turnId });
      } catch (error) {
        // A host hook failed: code `hook` (ErrorCode), as for every other hook that fails a turn.
        failTurn(turn, { code: ErrorCode.Hook, message: `onHistoryChangedHook failed; history was not persisted: ${errorText(error)}` }, true);
        throw error;
      }
    }
    turn.events.push("message.persisted", persistedPayload(change));
  }
}

function persistedPayload(change: HistoryChange) {
  return { reason: change.reason, messages: change.messages as never };
}
