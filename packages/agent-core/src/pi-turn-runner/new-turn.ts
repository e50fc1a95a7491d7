import { streamSimple } from "@mariozechner/pi-ai";
import { type Agent, type AgentMessage, type AgentTool } from "@turnkit/agent-loop";
import { errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode, type RuntimeWarningPayload, type TurnError } from "@turnkit/protocol";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import { withLlmRetryFilling } from "../call-stack/llm-retry.js";
import { optionFill } from "../call-stack/option-fill.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { withStreamTimeouts } from "../call-stack/stream-timeouts.js";
import { SerialEventQueue, type WriterFailureListener } from "../event-bridge/serial-event-queue.js";
import { type NewToolsOptions, newTools } from "../tools/new-tools.js";
import type { TurnWatch, WarningSink } from "../turn-watch/turn-watch.js";
import type { HistoryCursor } from "./history-cursor.js";
import { emitWarning, newTurnWatch, watchRetryNotice, watchedCallStack } from "./turn-watching.js";
import { announcePreparedRequest } from "./llm-prepared.js";
import type { RunTurnInput } from "./run-turn-input.js";
import type { RunnerDefaults } from "./runner-defaults.js";
import { SharedAbortGrace } from "./shared-abort-grace.js";
import { TurnEventBridge } from "./turn-event-bridge.js";
import { failTurn } from "./turn-failure.js";
import { type PiTurnHooks, hookArray } from "./turn-hooks.js";
import type { LlmDirective, TurnState } from "./turn-state.js";

/**
 * Step 1 of a turn: its state, with the serial event queue to the host's
 * writer, the EventBridge, the tool table and the call stack (for the
 * loop's requests and, with its own retry budget, for hooks' requests).
 * Emits nothing. Throws a `TurnkitConfigError` for invalid tools, before
 * any event.
 */
export function newTurn(input: RunTurnInput, defaults: RunnerDefaults): TurnState {
  return new Turn(input, defaults);
}

/** The hooks of a turn given none: one object for every such turn. */
const NO_HOOKS: PiTurnHooks = Object.freeze({});

/**
 * One turn's state. Its parts call back into it through its methods (the
 * writer failed, a warning, a tool call settled), so a turn is one object
 * rather than a closure per callback: many turns may run at once. Every
 * field is set in the constructor, so the object keeps one shape.
 */
class Turn implements TurnState, WriterFailureListener, WarningSink, NewToolsOptions {
  readonly input: RunTurnInput;
  readonly defaults: RunnerDefaults;
  readonly startedAt: number;
  readonly hooks: PiTurnHooks;
  readonly events: SerialEventQueue;
  readonly bridge: TurnEventBridge;
  tools: AgentTool<any>[] | undefined;
  readonly mainCallStack: StreamFn;
  readonly watch: TurnWatch;
  agent: Agent | undefined = undefined;
  cursor: HistoryCursor | undefined = undefined;
  undelivered: Set<AgentMessage> | undefined = undefined;
  settled = false;
  historyHooksCutAt: number | undefined = undefined;
  failure: TurnError | undefined = undefined;
  stopRequested = false;
  closed = false;
  cancelledBeforeStart = false;
  requestIndex = -1;
  announcedRequestIndex = -1;
  stepIndex = -1;
  afterLlmRetries = 0;
  nextDirective: LlmDirective | undefined = undefined;
  loopMessages: AgentMessage[] | undefined = undefined;
  terminatingCalls: Set<string> | undefined = undefined;
  terminateAgentRequested = false;
  /** Built at the first hook request only (most turns make none); the main stack has already checked the same config. */
  private auxiliaryCallStack: StreamFn | undefined = undefined;
  private auxiliaryWithTurnDefaults: StreamFn | undefined = undefined;
  /** Made at the first use (an abort, a host call, the turn's end): a turn running undisturbed holds none. */
  private sharedAbortGrace: SharedAbortGrace | undefined = undefined;

  constructor(input: RunTurnInput, defaults: RunnerDefaults) {
    this.input = input;
    this.defaults = defaults;
    this.startedAt = defaults.clock.now();
    this.hooks = input.hooks ?? NO_HOOKS;
    this.events = new SerialEventQueue(
      input.eventWriter,
      { sessionId: input.sessionId, turnId: input.turnId, newEventId: defaults.newEventId },
      this,
    );
    this.bridge = new TurnEventBridge(this);
    // The turn is the tool table's options: its ids, and its callbacks as methods.
    this.tools = newTools(input.tools ?? [], this);
    // Only the loop's requests are announced to onLlmCallPreparedHook, innermost, where their options are final.
    const announce = hookArray(input.hooks?.onLlmCallPreparedHook).length > 0;
    this.mainCallStack = retriedCallStack(
      this,
      "main",
      announce ? (streamFn) => announcePreparedRequest(this, streamFn) : undefined,
    );
    this.watch = newTurnWatch(this);
  }

  get abortGrace(): SharedAbortGrace {
    return (this.sharedAbortGrace ??= new SharedAbortGrace());
  }

  /** For hooks' own requests: the turn's API key and signal unless the call gives its own. Made at the first read (by a before-LLM hook). */
  get auxiliaryStreamFn(): StreamFn {
    return (this.auxiliaryWithTurnDefaults ??= (model, context, options) =>
      (this.auxiliaryCallStack ??= retriedCallStack(this, "auxiliary"))(model, context, {
        apiKey: this.input.llm.apiKey,
        ...options,
        signal: options?.signal ?? this.agent?.signal,
      }));
  }

  /** The host's writer failed: the turn fails as the host's fault. */
  writerFailed(error: unknown): void {
    failTurn(this, { code: ErrorCode.Internal, message: `The event writer failed: ${errorText(error)}` }, true);
  }

  /** A warning of the turn's watch, emitted in order with the turn's other events (nothing once the turn settled). */
  warn(warning: RuntimeWarningPayload): void {
    emitWarning(this, warning);
  }

  // ------------------------------------------------ the tool table's options

  get sessionId(): string {
    return this.input.sessionId;
  }

  get turnId(): string {
    return this.input.turnId;
  }

  get workspaceDir(): string | undefined {
    return this.input.workspaceDir ?? this.defaults.workspaceDir;
  }

  get disableBuiltinToolFallback(): boolean | undefined {
    return this.input.disableBuiltinToolFallback;
  }

  get bashEnv(): BashEnvSpawnHookOptions | undefined {
    return this.defaults.bashEnv;
  }

  resolveAssistantMessageId(toolCallId: string): string | undefined {
    return this.bridge.assistantMessageIdFor(toolCallId);
  }

  onExecuteSettled(toolCallId: string): void {
    this.watch.toolSettled(toolCallId);
  }

  onLateUpdate(toolCallId: string, toolName: string): void {
    emitWarning(this, {
      code: "late_tool_update",
      message: `${toolName} sent an update after its result; it was dropped`,
      toolCallId,
      toolName,
    });
  }
}

/**
 * The composed call stack with its own retry wrapper: one per request
 * family, so each has its own budget and its notices carry `label`.
 * `wrapInnermost`, when given, wraps the stream function all the other layers wrap,
 * where a request's options are final. Built while the turn is made (so a
 * bad host cap throws before any event); the turn's watch is read only
 * once a request runs.
 */
function retriedCallStack(
  turn: TurnState,
  label: "main" | "auxiliary",
  wrapInnermost?: (streamFn: StreamFn) => StreamFn,
): StreamFn {
  const { input, defaults } = turn;
  const streamFn = input.llm.streamFn ?? streamSimple;
  // The option layers write into the copy of the options the retry layer makes per attempt, instead of copying them again.
  const fillOptions = optionFill(input.llm);
  const timed = withStreamTimeouts(wrapInnermost ? wrapInnermost(streamFn) : streamFn, {
    firstEventTimeoutMs: input.llm.firstEventTimeoutMs,
    streamIdleTimeoutMs: input.llm.streamIdleTimeoutMs,
    clock: defaults.clock,
  });
  const hostRetry = input.llmRetry;
  const observer = (notice: LlmRetryNotification) => reportRetryNotice(turn, notice);
  const retryOptions = hostRetry === false ? false : { ...hostRetry, observer };
  return watchedCallStack(
    turn,
    label,
    (attempt) =>
      withLlmRetryFilling(
        attempt,
        retryOptions,
        { clock: defaults.clock, random: defaults.random, label },
        fillOptions,
      ),
    timed,
  );
}

/**
 * Reports a transport retry notice as a `debug.trace` (message: the notice
 * type) and to the logger in words (waits and cancellations are `warn`,
 * giving up is left to the turn's failure), then to the host's observer,
 * whose errors are swallowed.
 */
async function reportRetryNotice(turn: TurnState, notice: LlmRetryNotification): Promise<void> {
  const level = notice.type === "exhausted" ? "error" : notice.type === "waiting" ? "warn" : "info";
  const attrs: Record<string, unknown> = { ...notice };
  if ("error" in notice)
    attrs.error = { code: notice.error.code, message: notice.error.message, status: notice.error.status };
  if (!turn.settled) turn.bridge.trace("llm.retry", level, notice.type, attrs);
  watchRetryNotice(turn, notice);
  turn.defaults.logger[level === "info" ? "debug" : "warn"](retryNoticeText(notice), {
    phase: "llm.retry",
    ...attrs,
    turnId: turn.input.turnId,
  });
  const observer = turn.input.llmRetry === false ? undefined : turn.input.llmRetry?.observer;
  try {
    await observer?.(notice);
  } catch {
    // Observer errors are swallowed: a notice never changes the request.
  }
}

/** A retry notice in words, for the logger. */
function retryNoticeText(notice: LlmRetryNotification): string {
  switch (notice.type) {
    case "waiting":
      return `LLM request (${notice.label}) attempt ${notice.attempt} failed (${notice.error.code}: ${notice.error.message}); retrying in ${notice.delayMs} ms`;
    case "recovered":
      return `LLM request (${notice.label}) recovered at attempt ${notice.attempt}`;
    case "exhausted":
      return `LLM request (${notice.label}) gave up after ${notice.attempts} attempts (${notice.reason}): ${notice.error.code}: ${notice.error.message}`;
    case "cancelled":
      return `LLM request (${notice.label}) cancelled during retries at attempt ${notice.attempt}`;
    default: {
      const unreachable: never = notice;
      return unreachable;
    }
  }
}
