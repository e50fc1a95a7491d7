import type { AgentEvent } from "@turnkit/agent-loop";
import { runAfterLlmHooks } from "./after-llm-hooks.js";
import { isErrorOrAborted } from "./assistant-message.js";
import { deliverHistory } from "./history-delivery.js";
import { noteToolEnded, onStepEnd } from "./step-end.js";
import { hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";
import { watchAgentEvent } from "./turn-watching.js";

type MessageEndEvent = Extract<AgentEvent, { type: "message_end" }>;

/**
 * Step 5 of a turn: subscribes the one Agent listener, through which every
 * Agent event reaches the EventBridge (and so the serial event queue), the
 * after-LLM hooks, history delivery and step end, in event order. Returns
 * the function that unsubscribes it.
 */
export function subscribeAgentEvents(turn: RunningTurn): () => void {
  return turn.agent.subscribe((event) => onAgentEvent(turn, event));
}

/**
 * Handles one Agent event. Returns a promise only where the loop must wait
 * (id allocation, hooks, history delivery, steering), so streamed deltas
 * go straight to the writer.
 */
function onAgentEvent(turn: RunningTurn, event: AgentEvent): Promise<void> | void {
  watchAgentEvent(turn, event);
  switch (event.type) {
    case "message_update":
    case "tool_execution_start":
    case "tool_execution_update":
    case "agent_start":
    case "turn_start":
      return turn.bridge.handle(event);
    case "message_start":
      return turn.bridge.handle(event);
    case "message_end":
      return onMessageEnd(turn, event);
    // The bridge answers with a promise only while a message id is still being allocated;
    // then what follows must wait for it (and its failure must reach the loop).
    case "tool_execution_end": {
      noteToolEnded(turn, event.toolCallId, event.result);
      const bridged = turn.bridge.handle(event);
      return bridged ? bridged.then(() => deliverHistory(turn)) : deliverHistory(turn);
    }
    case "turn_end": {
      const bridged = turn.bridge.handle(event);
      return bridged
        ? bridged.then(() => onStepEnd(turn, event.message, event.toolResults))
        : onStepEnd(turn, event.message, event.toolResults);
    }
    case "agent_end":
      return turn.bridge.handle(event);
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/**
 * A completed message: the after-LLM hooks see a response first, then the
 * bridge emits it, then the host receives it. Without an after-LLM hook
 * it returns a promise only where the bridge or history delivery does.
 */
function onMessageEnd(turn: RunningTurn, event: MessageEndEvent): Promise<void> | void {
  const { message } = event;
  if (message.role === "assistant" && !isErrorOrAborted(message) && hookArray(turn.hooks.afterLlmCallHook).length > 0) {
    return runAfterLlmHooks(turn, message).then(() => emitAndDeliver(turn, event));
  }
  return emitAndDeliver(turn, event);
}

/** The loop's own event goes to the bridge (it reads only the message, which the hooks may have changed in place, never replaced). */
function emitAndDeliver(turn: RunningTurn, event: MessageEndEvent): Promise<void> | void {
  const bridged = turn.bridge.handle(event);
  return bridged ? bridged.then(() => deliverHistory(turn)) : deliverHistory(turn);
}
