import { errorText } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { composeStreamFn } from "../call-stack/compose-stream-fn.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import { withLlmRetry } from "../call-stack/llm-retry.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { withStreamTimeouts } from "../call-stack/stream-timeouts.js";
import { EventBridge } from "../event-bridge/event-bridge.js";
import { SerialEventQueue } from "../event-bridge/serial-event-queue.js";
import { newTools } from "../tools/new-tools.js";
import type { RunTurnInput } from "./run-turn-input.js";
import type { RunnerDefaults } from "./runner-defaults.js";
import { failTurn } from "./turn-failure.js";
import { type TurnState, initialTurnProgress } from "./turn-state.js";

/**
 * Step 1 of a turn: its state, with the serial event queue to the host's
 * writer, the EventBridge, the tool table and the call stack (for the
 * loop's requests and, with its own retry budget, for hooks' requests).
 * Emits nothing. Throws a `TurnkitConfigError` for invalid tools, before
 * any event.
 */
export function newTurn(input: RunTurnInput, defaults: RunnerDefaults): TurnState {
  const startedAt = defaults.clock.now();
  const events = new SerialEventQueue(
    input.eventWriter,
    { sessionId: input.sessionId, turnId: input.turnId, newEventId: defaults.newEventId },
    (error) => failTurn(turn, { code: ErrorCode.Internal, message: `The event writer failed: ${errorText(error)}` }, true),
  );
  const bridge = new EventBridge(
    (type, payload) => events.push(type, payload),
    async () => {
      try {
        return await defaults.allocateMessageId({ sessionId: input.sessionId, turnId: input.turnId });
      } catch (error) {
        // The host's allocator failed: the turn fails as the host's fault, not the provider's.
        failTurn(turn, { code: ErrorCode.Internal, message: `allocateMessageId failed: ${errorText(error)}` });
        throw error;
      }
    },
    () => defaults.clock.now(),
  );
  const tools = newTools(input.tools ?? [], {
    sessionId: input.sessionId,
    turnId: input.turnId,
    resolveAssistantMessageId: (toolCallId) => bridge.assistantMessageIdFor(toolCallId),
    workspaceDir: input.workspaceDir ?? defaults.workspaceDir,
    disableBuiltinToolFallback: input.disableBuiltinToolFallback,
    bashEnv: defaults.bashEnv,
  });
  const mainCallStack = retriedCallStack(input, defaults, bridge, "main");
  const auxiliaryCallStack = retriedCallStack(input, defaults, bridge, "auxiliary");
  const turn: TurnState = {
    input,
    defaults,
    startedAt,
    hooks: input.hooks ?? {},
    events,
    bridge,
    tools,
    mainCallStack,
    // For hooks' own requests: the turn's API key and signal unless the call gives its own.
    auxiliaryStreamFn: (model, context, options) =>
      auxiliaryCallStack(model, context, { apiKey: input.llm.apiKey, ...options, signal: options?.signal ?? turn.agent?.signal }),
    ...initialTurnProgress(),
  };
  return turn;
}

/** The composed call stack with its own retry wrapper: one per request family, so each has its own budget. */
function retriedCallStack(input: RunTurnInput, defaults: RunnerDefaults, bridge: EventBridge, label: "main" | "auxiliary"): StreamFn {
  const timed = withStreamTimeouts(composeStreamFn(input.llm), {
    firstEventTimeoutMs: input.llm.firstEventTimeoutMs,
    streamIdleTimeoutMs: input.llm.streamIdleTimeoutMs,
    clock: defaults.clock,
  });
  const hostRetry = input.llmRetry;
  const observer = (notice: LlmRetryNotification) => reportRetryNotice(input, bridge, notice);
  return withLlmRetry(timed, hostRetry === false ? false : { ...hostRetry, observer }, {
    clock: defaults.clock,
    random: defaults.random,
    label,
  });
}

/** Reports a transport retry notice as a `debug.trace`, then to the host's observer, whose errors are swallowed. */
async function reportRetryNotice(input: RunTurnInput, bridge: EventBridge, notice: LlmRetryNotification): Promise<void> {
  const level = notice.type === "exhausted" ? "error" : notice.type === "waiting" ? "warn" : "info";
  const attrs: Record<string, unknown> = { ...notice };
  if ("error" in notice) attrs.error = { code: notice.error.code, message: notice.error.message, status: notice.error.status };
  bridge.trace("llm.retry", level, notice.type, attrs);
  const observer = input.llmRetry === false ? undefined : input.llmRetry?.observer;
  try {
    await observer?.(notice);
  } catch {
    // Observer errors are swallowed: a notice never changes the request.
  }
}
