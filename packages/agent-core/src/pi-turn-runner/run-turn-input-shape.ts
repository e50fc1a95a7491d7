import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { type FieldRule, checkFields } from "./field-rules.js";
import type { TurnBudget } from "../turn-watch/turn-budget.js";
import type { RunTurnInput, TurnInputMessage } from "./run-turn-input.js";
import type { PiTurnHooks } from "./turn-hooks.js";

/*
 * The shape of a turn's input: for each key of `RunTurnInput` and of its
 * `llm`, `hooks`, `llmRetry`, `userMessage` and `budget`, what its value
 * must be when it is set. Typed as a record of every key of the interface,
 * so a field added to an interface fails to compile until it has a rule
 * here. `checked` marks a field whose value the turn's validation or its
 * layer checks more closely (ids, model, timeouts, limits, writer).
 */

const RUN_TURN_INPUT: Record<keyof RunTurnInput, FieldRule> = {
  sessionId: "checked",
  turnId: "checked",
  systemPrompt: "checked",
  userMessage: "checked",
  startMode: ["prompt", "continue"],
  history: "array",
  beforeUserMessages: "array",
  warnings: "checked",
  llm: "object",
  tools: "array",
  disableBuiltinToolFallback: "boolean",
  workspaceDir: "string",
  hooks: "object",
  llmRetry: "false or object",
  hookTimeoutMs: "positive integer",
  budget: "checked",
  eventWriter: "checked",
  signal: "signal",
  answerActionRequest: "function",
  getSteeringMessages: "function",
  shouldStopAfterSteering: "function",
  shouldStopAfterTurn: "function",
  tryBeginClose: "function",
};

const LLM_CONFIG: Record<keyof LlmConfig, FieldRule> = {
  model: "checked",
  apiKey: "string",
  streamFn: "function",
  thinkingLevel: ["off", "minimal", "low", "medium", "high", "xhigh"],
  cacheRetention: "checked",
  maxTokens: "positive integer",
  hostMaxOutputTokens: "checked",
  headers: "object",
  fetch: "function",
  firstEventTimeoutMs: "checked",
  streamIdleTimeoutMs: "checked",
  payloadTransform: "function",
  responseObserver: "function",
  fallback: "checked",
};

const HOOKS: Record<keyof PiTurnHooks, FieldRule> = {
  beforeLlmCallHook: "hook",
  onLlmCallPreparedHook: "hook",
  afterLlmCallHook: "hook",
  beforeToolCallHook: "hook",
  onToolExecutionStartHook: "hook",
  afterToolCallHook: "hook",
  onHistoryChangedHook: "hook",
  onStepEndHook: "hook",
};

const LLM_RETRY: Record<keyof LlmRetryOptions, FieldRule> = {
  maxRetries: "checked",
  baseDelayMs: "checked",
  maxDelayMs: "checked",
  maxRetryElapsedMs: "checked",
  observer: "function",
};

const USER_MESSAGE: Record<keyof TurnInputMessage, FieldRule> = { text: "checked", images: "array", batchId: "string" };

const BUDGET: Record<keyof TurnBudget, FieldRule> = {
  maxSteps: "checked",
  maxOutputTokens: "checked",
  maxCost: "checked",
};

/**
 * Throws a `TurnkitConfigError` (`invalid_turn_input`, or `unknown_key`
 * with the nearest valid key) naming the field, for an `llm` config given
 * on its own (to `composeStreamFn`) that is no object or has a key or a
 * value of the wrong type. `where` names it in the message.
 */
export function assertLlmConfigShape(llm: unknown, where: string): asserts llm is LlmConfig {
  if (!isRecord(llm)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      `${where} must be an object, got ${describeValue(llm)}`,
    );
  }
  checkFields(llm, LLM_CONFIG, where, ConfigErrorCode.InvalidTurnInput);
}

/**
 * Throws a `TurnkitConfigError` naming the field for a key the turn would
 * ignore (`unknown_key`, with the nearest valid key) or a value of the
 * wrong type (`invalid_turn_input`), in `RunTurnInput`, its `llm`, `hooks`,
 * `llmRetry`, `userMessage` or `budget`. An `undefined` value counts as
 * not set.
 */
export function assertRunTurnInputShape(input: RunTurnInput): void {
  const code = ConfigErrorCode.InvalidTurnInput;
  checkFields(input, RUN_TURN_INPUT, "RunTurnInput", code);
  checkFields(input.llm, LLM_CONFIG, "RunTurnInput.llm", code);
  checkFields(input.hooks, HOOKS, "RunTurnInput.hooks", code);
  if (input.llmRetry !== false) checkFields(input.llmRetry, LLM_RETRY, "RunTurnInput.llmRetry", code);
  checkFields(input.userMessage, USER_MESSAGE, "RunTurnInput.userMessage", code);
  checkFields(input.budget, BUDGET, "RunTurnInput.budget", code);
}
