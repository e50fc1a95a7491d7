import type { AgentEvent } from "@turnkit/agent-loop";
import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode, type RuntimeEventPayloadMap, type RuntimeEventType, type StepReport } from "@turnkit/protocol";
import { countedUsage } from "../call-stack/provider-usage.js";
import { EventBridge } from "../event-bridge/event-bridge.js";
import { describeValue } from "../messages/content-checks.js";
import { normaliseToolCallArguments } from "../messages/tool-call-arguments.js";
import { distinguishToolCallIds } from "../messages/tool-call-ids.js";
import { runAfterLlmHooks } from "./after-llm-hooks.js";
import { isErrorOrAborted } from "./assistant-message.js";
import { deliverHistory } from "./history-delivery.js";
import { HookAbandonedError, awaitHostCall } from "./host-calls.js";
import { noteToolEnded, onStepEnd } from "./step-end.js";
import { failTurn } from "./turn-failure.js";
import { hookArray } from "./turn-hooks.js";
import type { RunningTurn, TurnState } from "./turn-state.js";
import { takeStepReport, watchAgentEvent } from "./turn-watching.js";

/*
 * How the Agent's events become the turn's runtime events: the turn's one
 * Agent listener (step 5 of a turn), and the turn's EventBridge, which
 * turns them into payloads for the turn's event queue.
 */

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
  // Every response reaches events and history here, also one the loop built from a partial it gave up on.
  if (message.role === "assistant") {
    message.usage = countedUsage(message.usage);
    // In place, before any tool runs: the hooks, events, history and the next request all see one object,
    // and each call has an id of its own.
    normaliseToolCallArguments(message);
    distinguishToolCallIds(message);
  }
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

/** Never called: a turn's bridge sends and allocates through its turn (the base class's callbacks are not used). */
function unusedOutput(): void {}
function unusedAllocator(): string {
  return "";
}

/**
 * A turn's EventBridge: its payloads go to the turn's event queue (a
 * step's finish chunk carries the step's report), and its message ids come
 * from the host's allocator as a host call of the turn. Methods reading the
 * turn, rather than two callbacks made for each turn: many turns may run at once.
 */
export class TurnEventBridge extends EventBridge {
  constructor(private readonly turn: TurnState) {
    super(unusedOutput, unusedAllocator, turn.defaults.now);
  }

  protected override emit<TType extends RuntimeEventType>(type: TType, payload: RuntimeEventPayloadMap[TType]): void {
    this.turn.events.push(type, payload);
  }

  protected override stepReport(): StepReport | undefined {
    return takeStepReport(this.turn);
  }

  protected override allocateId(): string | Promise<string> {
    return allocateMessageId(this.turn);
  }
}

/**
 * The host's message id allocator, as a host call of the turn: a failure,
 * an answer that is not a non-empty string, or the id of an earlier message
 * of the turn, fails the turn as the host's fault (`internal`, naming the
 * allocator),
 * never the provider's; an allocator still pending past the abort grace is
 * given up on. Rejects in both cases, so the bridge never names a message.
 */
function allocateMessageId(turn: TurnState): string | Promise<string> {
  if (turn.settled) return awaitMessageId(turn, () => undefined as never);
  const { input, defaults } = turn;
  let answer: string | Promise<string>;
  try {
    answer = defaults.allocateMessageId({ sessionId: input.sessionId, turnId: input.turnId });
  } catch (error) {
    return awaitMessageId(turn, () => {
      throw error;
    });
  }
  // An id known at once is used at once: the bridge then makes the loop wait for nothing.
  if (typeof answer === "string" && answer !== "" && !turn.messageIds.has(answer)) {
    turn.messageIds.add(answer);
    return answer;
  }
  return awaitMessageId(turn, () => answer);
}

/** The allocator's answer (`call` returns it, or throws what the allocator threw) as a host call of the turn. */
async function awaitMessageId(turn: TurnState, call: () => string | Promise<string>): Promise<string> {
  let id: string | typeof ABANDONED;
  try {
    id = await awaitHostCall(turn, "allocateMessageId", call);
  } catch (error) {
    failTurn(
      turn,
      { code: ErrorCode.Internal, message: `The host callback allocateMessageId failed: ${errorText(error)}` },
      true,
    );
    throw error;
  }
  if (id === ABANDONED) throw new HookAbandonedError("allocateMessageId");
  if (typeof id !== "string" || id === "") {
    const message = `The host callback allocateMessageId returned ${describeValue(id)}, not a non-empty string`;
    failTurn(turn, { code: ErrorCode.Internal, message }, true);
    throw new Error(message);
  }
  // Two messages under one id would read as one (its chunk numbers starting again at 0).
  if (turn.messageIds.has(id)) {
    const message = `The host callback allocateMessageId returned ${describeValue(id)}, the id of an earlier message of this turn`;
    failTurn(turn, { code: ErrorCode.Internal, message }, true);
    throw new Error(message);
  }
  turn.messageIds.add(id);
  return id;
}
