import type { AgentMessage } from "@turnkit/agent-loop";
import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { jsonSafe } from "../event-bridge/json-safe.js";
import { copyForHost } from "../messages/host-copy.js";
import { ErrorCode, type RuntimeEventPayloadMap } from "@turnkit/protocol";
import { awaitHostCall } from "./host-calls.js";
import { failTurn } from "./turn-failure.js";
import { type HistoryChange, type OnHistoryChangedHook, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * Hands the history the host has not been given yet to every
 * `onHistoryChangedHook`, in order, then announces each change as
 * `message.persisted`; host messages in a change the whole chain accepted
 * count as delivered. A hook that throws fails the turn (code `hook`),
 * stops the Agent and rethrows: history is never silently lost. A hook
 * that threw, or was given up on after the abort, is cut off with the
 * hooks after it: none of them is called again (they would see a gap:
 * a tool result whose call they never stored), while the hooks before it
 * keep receiving every change; a change the whole chain did not accept is
 * not announced, and its host messages are handed back in the outcome.
 * Once the turn has settled, nothing is delivered.
 */
export function deliverHistory(turn: RunningTurn): Promise<void> | void {
  if (turn.settled) return;
  const changes = turn.cursor.take(turn.agent.state.messages);
  if (changes.length === 0) return;
  const hooks = hookArray(turn.hooks.onHistoryChangedHook);
  // Without a hook nothing is awaited: no promise for the loop to wait on, and no hook needs a copy of its own.
  if (hooks.length === 0) {
    for (const change of changes) announceDelivered(turn, change, plainJsonChange(change), false);
    return;
  }
  return deliverThroughHooks(turn, changes, hooks);
}

async function deliverThroughHooks(
  turn: RunningTurn,
  changes: readonly HistoryChange[],
  hooks: readonly OnHistoryChangedHook[],
): Promise<void> {
  for (const original of changes) {
    const change = hostCopy(original);
    for (const [index, hook] of hooks.entries()) {
      if (turn.historyHooksCutAt !== undefined && index >= turn.historyHooksCutAt) break;
      // The first hook gets the copy the event announces; each later one a copy of its own, so no hook sees another's edits.
      const handed = index === 0 ? change : hostCopy(original);
      let accepted: void | typeof ABANDONED;
      try {
        accepted = await awaitHostCall(turn, "onHistoryChangedHook", () =>
          hook(handed, { sessionId: turn.input.sessionId, turnId: turn.input.turnId }),
        );
      } catch (error) {
        // It and the hooks after it never see a later change: their stores would hold messages after a gap.
        turn.historyHooksCutAt = index;
        // A host hook failed: code `hook` (ErrorCode), as for every other hook that fails a turn.
        failTurn(
          turn,
          {
            code: ErrorCode.Hook,
            message: `onHistoryChangedHook failed; history was not persisted: ${errorText(error)}`,
          },
          true,
        );
        throw error;
      }
      if (accepted === ABANDONED) {
        turn.historyHooksCutAt = index;
        break;
      }
    }
    announceDelivered(turn, original, change, true);
  }
}

/**
 * A change every hook accepted (`seenByHooks`: there were hooks): its host
 * messages count as delivered and it is announced, as `plain` (the change
 * as plain JSON, see {@link plainJsonChange}).
 */
function announceDelivered(turn: RunningTurn, change: HistoryChange, plain: HistoryChange, seenByHooks: boolean): void {
  if (turn.historyHooksCutAt !== undefined || turn.settled) return;
  const undelivered = turn.undelivered;
  if (undelivered) for (const message of change.messages) undelivered.delete(message);
  turn.events.push("message.persisted", persistedPayload(plain, seenByHooks));
}

/**
 * A host's copy of a change (see `copyForHost`), as plain JSON (see
 * {@link plainJsonChange}), so editing it never changes the transcript.
 * Each history hook gets one of its own; the first hook's is the one
 * `message.persisted` announces. Changes are announced in the order the
 * hooks were handed them, none after one that was not, so a store can
 * match the k-th announcement of a turn to the k-th change it took (as
 * agent-durable does).
 */
function hostCopy(change: HistoryChange): HistoryChange {
  return copyForHost(plainJsonChange(change));
}

/**
 * `change` itself when its messages are plain JSON; else the change with a
 * JSON-safe copy (see `jsonSafe`) of each message that is not, so what the
 * hooks store and what `message.persisted` carries is the same plain JSON
 * (a tool's `details` may hold a cycle, a bigint or a function). A
 * replacement's `previousMessages` are handed to the hooks the same way.
 * The messages of the transcript are not changed.
 */
function plainJsonChange(change: HistoryChange): HistoryChange {
  const messages = plainJsonMessages(change.messages);
  if (change.reason !== "replaceMessages") return messages === change.messages ? change : { ...change, messages };
  const previousMessages = plainJsonMessages(change.previousMessages);
  if (messages === change.messages && previousMessages === change.previousMessages) return change;
  return { ...change, messages, previousMessages };
}

/** `messages` itself when each is plain JSON, else a list with a JSON-safe copy of each one that is not. */
function plainJsonMessages(messages: AgentMessage[]): AgentMessage[] {
  let copied: AgentMessage[] | undefined;
  messages.forEach((message, index) => {
    const plain = jsonSafe(message) as AgentMessage;
    if (plain === message) return;
    copied ??= messages.slice();
    copied[index] = plain;
  });
  return copied ?? messages;
}

/** The change's reason and messages. A delta no hook was handed is already just that, and nothing else holds it: it is sent as it is. */
function persistedPayload(change: HistoryChange, seenByHooks: boolean): RuntimeEventPayloadMap["message.persisted"] {
  if (!seenByHooks && change.reason === "messageDelta") return change as RuntimeEventPayloadMap["message.persisted"];
  return { reason: change.reason, messages: change.messages as never };
}
