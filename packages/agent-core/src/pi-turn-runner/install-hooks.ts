import { copyForHost } from "../messages/host-copy.js";
import { runBeforeLlmHooks } from "./before-llm-hooks.js";
import { askHost } from "./host-calls.js";
import { afterToolCall, beforeToolCall, onToolExecutionStart } from "./tool-hooks.js";
import { hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * Step 4 of a turn: installs the LLM hook seam (before-LLM hooks as the
 * loop's `transformContext`; the turn's call stack answers their
 * directives), the tool hook seam, and the stop checks: the loop stops after a
 * step when the turn asked to stop (a failure, a `skip`, or the host's
 * `shouldStopAfterTurn`, asked at step end before any steering poll), and
 * after steering when `shouldStopAfterSteering` says so (a failing check
 * fails the turn, code `internal`, and stops it).
 */
export function installHooks(turn: RunningTurn): void {
  const { agent, input } = turn;
  // Without before-LLM hooks, a budget or a hook that reads the request index, a request is sent as the loop made it.
  agent.transformContext = readsRequests(turn)
    ? (messages, signal) => runBeforeLlmHooks(turn, messages, signal, "request")
    : undefined;
  // Without a before-tool hook there is nothing to ask: the loop admits each call without a call and a promise.
  agent.beforeToolCall =
    hookArray(turn.hooks.beforeToolCallHook).length > 0
      ? (context, signal) => beforeToolCall(turn, context, signal)
      : undefined;
  // Without an after-tool hook a result goes on as the tool gave it (step end notes terminating results at tool_execution_end).
  agent.afterToolCall =
    hookArray(turn.hooks.afterToolCallHook).length > 0
      ? (context, signal) => afterToolCall(turn, context, signal)
      : undefined;
  agent.onToolExecutionStart = (context, signal) => onToolExecutionStart(turn, context, signal);
  agent.shouldStopAfterTurn = () => turn.stopRequested;
  const stopAfterSteering = input.shouldStopAfterSteering;
  agent.shouldStopAfterSteering = stopAfterSteering
    ? async (context) => {
        const stop =
          (await askHost(
            turn,
            "shouldStopAfterSteering",
            () => stopAfterSteering({ steeringMessages: copyForHost(context.steeringMessages) }),
            true,
          )) === true;
        if (stop) turn.stopRequested = true;
        return stop;
      }
    : undefined;
}

/** Whether anything of the turn runs before a request or reads its index: before-LLM hooks, a budget, after-LLM or prepared-call hooks. */
function readsRequests(turn: RunningTurn): boolean {
  const { hooks, input } = turn;
  return (
    input.budget !== undefined ||
    hookArray(hooks.beforeLlmCallHook).length > 0 ||
    hookArray(hooks.afterLlmCallHook).length > 0 ||
    hookArray(hooks.onLlmCallPreparedHook).length > 0
  );
}
