import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { type AgentMessage } from "@turnkit/agent-loop";
import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { messageProblem } from "../messages/content-checks.js";
import { copyForHost, copyFromHost } from "../messages/host-copy.js";
import { createUserMessage, isBlankUserInput } from "../messages/turn-messages.js";
import { hasToolCalls, isErrorOrAborted } from "./assistant-message.js";
import { askHost, awaitHostCall } from "./host-calls.js";
import { MAX_CLOSE_ATTEMPTS, leaveOutBlankSteering, pollSteering, tryBeginClose } from "./steering.js";
import { hookArray } from "./turn-hooks.js";
import { reportTrace } from "./turn-log.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * At each loop `turn_end` (a step end): the `onStepEndHook`s, then the
 * host's `shouldStopAfterTurn` (where the loop would ask it: after a step
 * that did not fail, abort or run out of tokens mid-call; `true` ends the
 * turn here, without polling), then steering with its boundary. `mid-turn`
 * when more steps follow (tool results to answer, queued messages), `exit`
 * when this step would be the last; at `exit`, with nothing new, the runner
 * tries to close the turn. Nothing is polled after an error or aborted
 * response, a stop request, a failure or a close.
 */
export function onStepEnd(
  turn: RunningTurn,
  message: AgentMessage,
  toolResults: ToolResultMessage[],
): Promise<void> | void {
  const stepIndex = ++turn.stepIndex;
  if (message.role !== "assistant" || turn.settled) return;
  // Without host code to ask, a step end only resets the batch's terminate record: no promise for the loop to wait on.
  if (!hostActsAtStepEnd(turn)) {
    takeBatchTerminates(turn, toolResults);
    return;
  }
  return endStepWithHost(turn, stepIndex, message, toolResults);
}

/** Whether the host installed anything a step end calls: a step-end hook, the stop check, a steering source or `tryBeginClose`. */
function hostActsAtStepEnd(turn: RunningTurn): boolean {
  const { input } = turn;
  return (
    hookArray(turn.hooks.onStepEndHook).length > 0 ||
    Boolean(input.shouldStopAfterTurn) ||
    Boolean(input.getSteeringMessages) ||
    Boolean(input.tryBeginClose)
  );
}

async function endStepWithHost(
  turn: RunningTurn,
  stepIndex: number,
  message: AssistantMessage,
  toolResults: ToolResultMessage[],
): Promise<void> {
  await runStepEndHooks(turn, stepIndex, message, toolResults);
  const batchTerminates = takeBatchTerminates(turn, toolResults);
  if (isErrorOrAborted(message) || turn.stopRequested || turn.closed || turn.agent.signal?.aborted) return;
  if (message.stopReason === "length" && hasToolCalls(message)) return;
  if (await hostStopsAfterStep(turn, message, toolResults)) return;
  // A batch that terminates the agent is the last step unless steering arrives: that is the exit boundary.
  const moreSteps = toolResults.length > 0 && hasToolCalls(message) && !batchTerminates;
  for (let attempt = 0; attempt < MAX_CLOSE_ATTEMPTS; attempt++) {
    if (turn.agent.signal?.aborted || turn.stopRequested) return;
    const boundary = moreSteps || turn.agent.hasQueuedMessages() ? "mid-turn" : "exit";
    const received = await pollSteering(turn, boundary);
    if (received > 0 || moreSteps || turn.agent.hasQueuedMessages() || turn.stopRequested) return;
    if (!turn.input.tryBeginClose) return;
    if (await tryBeginClose(turn, message)) return;
  }
}

/** Asks the host's `shouldStopAfterTurn`; `true` (or a failing callback) makes this step the turn's last. */
async function hostStopsAfterStep(
  turn: RunningTurn,
  message: AssistantMessage,
  toolResults: ToolResultMessage[],
): Promise<boolean> {
  const shouldStop = turn.input.shouldStopAfterTurn;
  if (!shouldStop) return false;
  const stop =
    (await askHost(
      turn,
      "shouldStopAfterTurn",
      () => shouldStop({ message: copyForHost(message), toolResults: copyForHost(toolResults) }),
      true,
    )) === true;
  if (stop) turn.stopRequested = true;
  return stop;
}

/**
 * A call of the current step ended (`tool_execution_end`) with its final
 * result, after every after-tool hook: the step end needs to know whether
 * it terminates the batch, as the loop decides it.
 */
export function noteToolEnded(
  turn: RunningTurn,
  toolCallId: string,
  result: { terminate?: boolean } | undefined,
): void {
  if (result?.terminate === true) (turn.terminatingCalls ??= new Set()).add(toolCallId);
}

/** Whether the loop sends no request for this step's results, as the loop decides it; resets for the next step. */
function takeBatchTerminates(turn: RunningTurn, toolResults: ToolResultMessage[]): boolean {
  const calls = turn.terminatingCalls;
  const terminates =
    turn.terminateAgentRequested ||
    (toolResults.length > 0 && calls !== undefined && toolResults.every((result) => calls.has(result.toolCallId)));
  turn.terminateAgentRequested = false;
  calls?.clear();
  return terminates;
}

/**
 * Runs the `onStepEndHook`s in order; a throw is reported as a `debug.trace`
 * error and the turn goes on; a hook given up on after the abort stops the
 * chain. Messages a hook queues count as handed over (delivered into history
 * or handed back in the outcome), but for a user message that says nothing,
 * which is left out as blank steering is; queueing after the turn settled,
 * or a message that is not well formed (see `messageProblem`), throws at
 * the `enqueue` call, naming the field.
 */
async function runStepEndHooks(
  turn: RunningTurn,
  stepIndex: number,
  message: AssistantMessage,
  toolResults: ToolResultMessage[],
): Promise<void> {
  const hooks = hookArray(turn.hooks.onStepEndHook);
  const signal = turn.agent.signal ?? new AbortController().signal;
  const enqueue = (queued: string | AgentMessage) => {
    if (turn.settled)
      throw new Error("onStepEndHook enqueue: the turn has already ended; deliver the message in a later turn");
    const problem = typeof queued === "string" ? undefined : messageProblem(queued);
    if (problem) throw new TypeError(`onStepEndHook enqueue: the message${problem}`);
    // A copy: the hook may go on editing its own message; what is queued is what it handed over.
    const steering = typeof queued === "string" ? createUserMessage(queued) : copyFromHost(queued);
    if (isBlankUserInput(steering)) return leaveOutBlankSteering(turn, 1, "enqueue");
    (turn.undelivered ??= new Set()).add(steering);
    turn.agent.steer(steering);
  };
  for (const hook of hooks) {
    try {
      const done = await awaitHostCall(turn, "onStepEndHook", () =>
        hook({
          sessionId: turn.input.sessionId,
          turnId: turn.input.turnId,
          stepIndex,
          message: copyForHost(message),
          toolResults: copyForHost(toolResults),
          enqueue,
          signal,
        }),
      );
      if (done === ABANDONED) return;
    } catch (error) {
      reportTrace(turn, "step", "error", `onStepEndHook failed: ${errorText(error)}`, { stepIndex });
    }
  }
}
