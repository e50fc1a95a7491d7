import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { assertKnownKeys } from "../known-keys.js";
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

type FieldRule =
  | "checked"
  | "string"
  | "boolean"
  | "function"
  | "array"
  | "object"
  | "hook"
  | "signal"
  | "positive integer"
  | "false or object"
  | readonly string[];

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
 * Throws a `TurnkitConfigError` naming the field for a key the turn would
 * ignore (`unknown_key`, with the nearest valid key) or a value of the
 * wrong type (`invalid_turn_input`), in `RunTurnInput`, its `llm`, `hooks`,
 * `llmRetry`, `userMessage` or `budget`. An `undefined` value counts as
 * not set.
 */
export function assertRunTurnInputShape(input: RunTurnInput): void {
  checkFields(input, RUN_TURN_INPUT, "RunTurnInput");
  checkFields(input.llm, LLM_CONFIG, "RunTurnInput.llm");
  checkFields(input.hooks, HOOKS, "RunTurnInput.hooks");
  if (input.llmRetry !== false) checkFields(input.llmRetry, LLM_RETRY, "RunTurnInput.llmRetry");
  checkFields(input.userMessage, USER_MESSAGE, "RunTurnInput.userMessage");
  checkFields(input.budget, BUDGET, "RunTurnInput.budget");
}

/**
 * Checks each own key of `value` against `rules`. A key not there goes to
 * `assertKnownKeys` for the error and its hint, so a valid input builds no
 * key list.
 */
function checkFields(value: unknown, rules: Record<string, FieldRule>, where: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  for (const [key, field] of Object.entries(value)) {
    if (!Object.hasOwn(rules, key)) assertKnownKeys(value, Object.keys(rules), where);
    const rule = rules[key]!;
    if (field === undefined || rule === "checked" || fits(rule, field)) continue;
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      `${where}.${key} must be ${describeRule(rule)}, got ${describeValue(field)}`,
    );
  }
}

function fits(rule: Exclude<FieldRule, "checked">, value: unknown): boolean {
  if (Array.isArray(rule)) return rule.includes(value as string);
  switch (rule) {
    case "string":
    case "boolean":
    case "function":
      return typeof value === rule;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "hook":
      return typeof value === "function" || (Array.isArray(value) && value.every((hook) => typeof hook === "function"));
    case "signal":
      return value instanceof AbortSignal;
    case "positive integer":
      return typeof value === "number" && Number.isInteger(value) && value > 0;
    case "false or object":
      return value === false || (typeof value === "object" && value !== null && !Array.isArray(value));
  }
  return false;
}

function describeRule(rule: Exclude<FieldRule, "checked">): string {
  if (Array.isArray(rule)) return `one of ${rule.map((option) => `"${option}"`).join(", ")}`;
  switch (rule) {
    case "string":
    case "boolean":
    case "function":
    case "array":
    case "object":
      return `${rule === "array" || rule === "object" ? "an" : "a"} ${rule}`;
    case "hook":
      return "a function or an array of functions";
    case "signal":
      return "an AbortSignal";
    case "positive integer":
      return "a positive integer";
    case "false or object":
      return "false or an object";
  }
  return String(rule);
}

function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}
