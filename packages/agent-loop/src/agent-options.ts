import { describeValue, isRecord } from "./message-checks.js";
import { thrownText } from "./synthetic-messages.js";
import type { Message, SimpleStreamOptions, ThinkingBudgets, Transport } from "@mariozechner/pi-ai";
import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentEvent,
  AgentMessage,
  AgentState,
  BeforeToolCallContext,
  BeforeToolCallResult,
  QueueMode,
  ShouldStopAfterSteeringContext,
  ShouldStopAfterTurnContext,
  StreamFn,
  ToolExecutionMode,
  ToolExecutionStartContext,
} from "./types.js";

/** Options for constructing an {@link Agent}; the pi-agent-core 0.73 options plus three Turnkit additions. */
export interface AgentOptions {
  /**
   * The state the agent starts with: `model` (default: a placeholder whose
   * requests fail with an error message until the host sets one),
   * `systemPrompt`, `thinkingLevel`, `tools` and `messages`. The arrays are
   * copied, so later changes to the caller's arrays do not reach the agent.
   */
  initialState?: Partial<Omit<AgentState, "pendingToolCalls" | "isStreaming" | "streamingMessage" | "errorMessage">>;
  /** Default: keeps `user`, `assistant` and `toolResult` messages, drops custom ones. */
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Rewrites the transcript before each request (pruning, injection); see `AgentLoopConfig.transformContext`. A throw fails the run: it ends with an `error` assistant message. */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Default: pi-ai `streamSimple`. */
  streamFn?: StreamFn;
  /** Resolves the API key for each request, asked again every time (short-lived tokens). `undefined` lets the provider use its env var. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** Forwarded to the stream function: inspect or replace the provider payload before it is sent. */
  onPayload?: SimpleStreamOptions["onPayload"];
  /** Forwarded to the stream function: called with the HTTP status and headers before the body is read. */
  onResponse?: SimpleStreamOptions["onResponse"];
  /** Runs after argument validation; may block the call (error result) or stop the agent after the batch. A throw blocks the call. */
  beforeToolCall?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** Runs after `execute`, before `tool_execution_end`; its patch is merged field by field. A throw makes the result an error. */
  afterToolCall?: (context: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /** Default `"one-at-a-time"`. */
  steeringMode?: QueueMode;
  /** Default `"one-at-a-time"`. */
  followUpMode?: QueueMode;
  /** Forwarded to the stream function with every request, for providers that cache per session; the agent never reads it. */
  sessionId?: string;
  /** Token budgets per thinking level, forwarded to the stream function with every request. */
  thinkingBudgets?: ThinkingBudgets;
  /** Preferred transport, forwarded to the stream function. Default `"auto"`. */
  transport?: Transport;
  /** Cap on a retry delay the provider asks for, forwarded to the stream function; the agent itself never retries. */
  maxRetryDelayMs?: number;
  /** Default `"parallel"`. */
  toolExecution?: ToolExecutionMode;
  /** Turnkit addition: see `AgentLoopConfig.shouldStopAfterTurn`. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /** Turnkit addition: see `AgentLoopConfig.shouldStopAfterSteering`. */
  shouldStopAfterSteering?: (context: ShouldStopAfterSteeringContext) => boolean | Promise<boolean>;
  /** Turnkit addition: observes each admitted tool call right before it executes. */
  onToolExecutionStart?: (context: ToolExecutionStartContext, signal?: AbortSignal) => void | Promise<void>;
}

/** A subscriber; awaited in subscription order with the run's abort signal. */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => Promise<void> | void;

/** The modes of the steering and follow-up queues. */
export const QUEUE_MODES: readonly QueueMode[] = ["one-at-a-time", "all"];
const TOOL_EXECUTION_MODES: readonly ToolExecutionMode[] = ["parallel", "sequential"];
const TRANSPORTS: readonly Transport[] = ["sse", "websocket", "auto"];
const CALLBACK_OPTIONS = [
  "streamFn",
  "convertToLlm",
  "transformContext",
  "getApiKey",
  "onPayload",
  "onResponse",
  "beforeToolCall",
  "afterToolCall",
  "shouldStopAfterTurn",
  "shouldStopAfterSteering",
  "onToolExecutionStart",
] as const;

/** Throws a `TypeError` naming the option unless `value` is one of `allowed`. */
export function assertOneOf(value: unknown, allowed: readonly string[], name: string): void {
  if (!allowed.includes(value as string)) {
    const names = allowed.map((one) => JSON.stringify(one)).join(", ");
    throw new TypeError(`Agent: ${name} must be one of ${names}, got ${describeValue(value)}`);
  }
}

/** `object[field]`, or a `TypeError` naming `name` when the read throws. */
function readField(object: Record<string, unknown>, field: string, name: string): unknown {
  try {
    return object[field];
  } catch (error) {
    throw new TypeError(`Agent: ${name} could not be read: ${thrownText(error)}`, { cause: error });
  }
}

/**
 * A model, when given, must be an object whose `api`, `provider` and `id`
 * can be read: every request and every failure message reads them, and a
 * model that cannot be read would fail each with the engine's text.
 */
function assertReadableModel(model: unknown): void {
  if (model === undefined) return;
  if (!isRecord(model))
    throw new TypeError(`Agent: initialState.model must be a model object, got ${describeValue(model)}`);
  for (const field of ["api", "provider", "id"]) readField(model, field, `initialState.model.${field}`);
}

/**
 * Throws a `TypeError` naming the option for an `initialState` that is no
 * object, a `model` in it that cannot be read, a mode that is none of its values, or a callback that is no
 * function.
 */
export function assertAgentOptions(options: AgentOptions): void {
  if (!isRecord(options as unknown)) {
    throw new TypeError(`Agent: options must be an object, got ${describeValue(options)}`);
  }
  const initial: unknown = options.initialState;
  if (initial !== undefined && !isRecord(initial))
    throw new TypeError(`Agent: initialState must be an object, got ${describeValue(initial)}`);
  if (initial !== undefined) assertReadableModel(readField(initial, "model", "initialState.model"));
  if (options.steeringMode !== undefined) assertOneOf(options.steeringMode, QUEUE_MODES, "steeringMode");
  if (options.followUpMode !== undefined) assertOneOf(options.followUpMode, QUEUE_MODES, "followUpMode");
  if (options.toolExecution !== undefined) assertOneOf(options.toolExecution, TOOL_EXECUTION_MODES, "toolExecution");
  if (options.transport !== undefined) assertOneOf(options.transport, TRANSPORTS, "transport");
  for (const name of CALLBACK_OPTIONS) {
    const value = options[name];
    if (value !== undefined && typeof value !== "function") {
      throw new TypeError(`Agent: ${name} must be a function, got ${describeValue(value)}`);
    }
  }
}
