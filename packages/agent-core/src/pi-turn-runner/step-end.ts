import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { type AgentMessage, errorText } from "@turnkit/agent-loop";
import { createUserMessage } from "../messages/turn-messages.js";
import { hasToolCalls, isErrorOrAborted } from "./assistant-message.js";
import { MAX_CLOSE_ATTEMPTS, pollSteering, tryBeginClose } from "./steering.js";
import { hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * At each loop `turn_end` (a step end): the `onStepEndHook`s, then steering
 * with its boundary. `mid-turn` when more steps follow (tool results to
 * answer, queued messages), `exit` when this step would be the last; at
 * `exit`, with nothing new, the runner tries to close the turn. Nothing is
 * polled after an error or aborted response, a stop request or a close.
 */
export async function onStepEnd(turn: RunningTurn, message: AgentMessage, toolResults: ToolResultMessage[]): Promise<void> {
  turn.stepIndex++;
  if (message.role !== "assistant") return;
  await runStepEndHooks(turn, message, toolResults);
  const batchTerminates = takeBatchTerminates(turn, toolResults);
  if (isErrorOrAborted(message) || turn.stopRequested || turn.closed) return;
  // A batch that terminates the agent is the last step unless steering arrives: that is the exit boundary.
  const moreSteps = toolResults.length > 0 && hasToolCalls(message) && !batchTerminates;
  for (let attempt = 0; attempt < MAX_CLOSE_ATTEMPTS; attempt++) {
    if (turn.agent.signal?.aborted) return;
    const boundary = moreSteps || turn.agent.hasQueuedMessages() ? "mid-turn" : "exit";
    const received = await pollSteering(turn, boundary);
    if (received > 0 || moreSteps || turn.agent.hasQueuedMessages()) return;
    if (!turn.input.tryBeginClose) return;
    if (await tryBeginClose(turn, message)) return;
  }
}

/** Whether the loop sends no request for this step's results, as the loop decides it; resets for the next step. */
function takeBatchTerminates(turn: RunningTurn, toolResults: ToolResultMessage[]): boolean {
  const terminates =
    turn.terminateAgentRequested || (toolResults.length > 0 && toolResults.every((result) => turn.terminatingCalls.has(result.toolCallId)));
  turn.terminateAgentRequested = false;
  turn.terminatingCalls.clear();
  return terminates;
}

/** Runs the `onStepEndHook`s in order; a throw is reported as a `debug.trace` error and the turn goes on. */
async function runStepEndHooks(turn: RunningTurn, message: AssistantMessage, toolResults: ToolResultMessage[]): Promise<void> {
  const hooks = hookArray(turn.hooks.onStepEndHook);
  for (const hook of hooks) {
    try {
      await hook({
        sessionId: turn.input.sessionId,
        turnId: turn.input.turnId,
        stepIndex: turn.stepIndex,
        message,
        toolResults,
        enqueue: (queued) => turn.agent.steer(typeof queued === "string" ? createUserMessage(queued) : queued),
        signal: turn.agent.signal ?? new AbortController().signal,
      });
    } catch (error) {
      turn.bridge.trace("step", "error", `onStepEndHook failed: ${errorText(error)}`, { stepIndex: turn.stepIndex });
    }
  }
}
