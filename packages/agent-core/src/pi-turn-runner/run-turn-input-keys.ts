import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import { assertKnownKeys } from "../known-keys.js";
import type { RunTurnInput, TurnInputMessage } from "./run-turn-input.js";
import type { PiTurnHooks } from "./turn-hooks.js";

/**
 * The keys each part of a turn's input may have. Typed as a record of every
 * key of the interface, so a field added to the interface fails to compile
 * until it is listed here too.
 */
const RUN_TURN_INPUT_KEYS: Record<keyof RunTurnInput, true> = {
  sessionId: true,
  turnId: true,
  systemPrompt: true,
  userMessage: true,
  startMode: true,
  history: true,
  beforeUserMessages: true,
  warnings: true,
  llm: true,
  tools: true,
  disableBuiltinToolFallback: true,
  workspaceDir: true,
  hooks: true,
  llmRetry: true,
  budget: true,
  eventWriter: true,
  signal: true,
  answerActionRequest: true,
  getSteeringMessages: true,
  shouldStopAfterSteering: true,
  shouldStopAfterTurn: true,
  tryBeginClose: true,
};

const LLM_CONFIG_KEYS: Record<keyof LlmConfig, true> = {
  model: true,
  apiKey: true,
  streamFn: true,
  thinkingLevel: true,
  cacheRetention: true,
  maxTokens: true,
  hostMaxOutputTokens: true,
  headers: true,
  fetch: true,
  firstEventTimeoutMs: true,
  streamIdleTimeoutMs: true,
  payloadTransform: true,
  responseObserver: true,
  fallback: true,
};

const HOOK_KEYS: Record<keyof PiTurnHooks, true> = {
  beforeLlmCallHook: true,
  onLlmCallPreparedHook: true,
  afterLlmCallHook: true,
  beforeToolCallHook: true,
  onToolExecutionStartHook: true,
  afterToolCallHook: true,
  onHistoryChangedHook: true,
  onStepEndHook: true,
};

const LLM_RETRY_KEYS: Record<keyof LlmRetryOptions, true> = {
  maxRetries: true,
  baseDelayMs: true,
  maxDelayMs: true,
  maxRetryElapsedMs: true,
  observer: true,
};

const USER_MESSAGE_KEYS: Record<keyof TurnInputMessage, true> = { text: true, images: true, batchId: true };

/**
 * Throws a `TurnkitConfigError` (`unknown_key`) for a key the turn would
 * ignore: in `RunTurnInput`, its `llm`, `hooks`, `llmRetry` or
 * `userMessage`, naming the key, where, and the nearest valid key.
 */
export function assertKnownRunTurnInputKeys(input: RunTurnInput): void {
  assertKeysIn(input, RUN_TURN_INPUT_KEYS, "RunTurnInput");
  assertKeysIn(input.llm, LLM_CONFIG_KEYS, "RunTurnInput.llm");
  assertKeysIn(input.hooks, HOOK_KEYS, "RunTurnInput.hooks");
  if (input.llmRetry !== false) assertKeysIn(input.llmRetry, LLM_RETRY_KEYS, "RunTurnInput.llmRetry");
  assertKeysIn(input.userMessage, USER_MESSAGE_KEYS, "RunTurnInput.userMessage");
}

/**
 * `assertKnownKeys` for a turn's input, which is checked on every turn:
 * each own key is looked up in `keys` itself, and only a key not there
 * goes to `assertKnownKeys` for the error and its hint, so a valid input
 * builds no key list or set.
 */
function assertKeysIn(value: unknown, keys: Record<string, true>, where: string): void {
  if (typeof value !== "object" || value === null) return;
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(keys, key)) assertKnownKeys(value, Object.keys(keys), where);
  }
}
