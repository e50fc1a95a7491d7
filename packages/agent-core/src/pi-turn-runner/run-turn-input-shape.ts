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

/** The option objects of a turn's input that are read once with it, and the keys each may hold. */
const OPTION_OBJECTS: readonly (readonly [keyof RunTurnInput, Record<string, FieldRule>])[] = [
  ["llm", LLM_CONFIG],
  ["hooks", HOOKS],
  ["userMessage", USER_MESSAGE],
  ["llmRetry", LLM_RETRY],
  ["budget", BUDGET],
];

/**
 * The turn's input read once: a plain copy of `input` and of its `llm`,
 * `hooks`, `userMessage`, `llmRetry` and `budget` (and the event writer's
 * `push`, called on the writer as before), each field read exactly
 * once (its own keys, and the fields of those interfaces it inherits, such
 * as a class's getters). The turn is checked and run on this copy, so a
 * getter of the host's that throws or answers otherwise on a later read
 * cannot change the turn after the check. A value that is no object comes
 * back as it is, for the check to refuse. Throws what reading throws.
 */
export function readRunTurnInputOnce(input: RunTurnInput): RunTurnInput {
  if (!isRecord(input)) return input;
  const copy = readFieldsOnce(input, RUN_TURN_INPUT);
  for (const [key, rules] of OPTION_OBJECTS) {
    const value = copy[key];
    if (isRecord(value)) copy[key] = readFieldsOnce(value, rules);
  }
  if (isRecord(copy.eventWriter)) copy.eventWriter = writerReadOnce(copy.eventWriter);
  return copy as unknown as RunTurnInput;
}

/** A writer whose `push` was read once and is called on the host's writer (a method of a class keeps its `this`). */
function writerReadOnce(writer: Record<string, unknown>): Record<string, unknown> {
  const push = writer.push;
  if (typeof push !== "function") return { push };
  return { push: (event: unknown) => push.call(writer, event) };
}

function readFieldsOnce(value: object, rules: Record<string, FieldRule>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  // defineProperty: an own `__proto__` key stays a key (the shape check refuses it) instead of setting the prototype.
  const take = (key: string) =>
    Object.defineProperty(copy, key, {
      value: (value as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  for (const key of Object.keys(value)) take(key);
  for (const key of Object.keys(rules)) if (!Object.hasOwn(copy, key) && key in value) take(key);
  return copy;
}
