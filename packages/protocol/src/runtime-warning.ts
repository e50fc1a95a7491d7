import type { TurnError } from "./turn-outcome.js";

/**
 * Stable codes of `runtime.warning` events: something went wrong and the
 * turn recovered or went on. Hosts branch on these strings; new codes may
 * be added, so keep a default branch.
 */
export const RuntimeWarningCode = {
  /** A model request failed and is sent again after a wait (rate limit, overload, network). */
  RetryWait: "retry_wait",
  /** A model request timed out (first event or idle) and is sent again after a wait. */
  TimeoutRetried: "timeout_retried",
  /** Images were left out of a request (too small, or past the per-request limit); the model sees a placeholder. */
  ImagesDropped: "images_dropped",
  /** A request overflowed the context window; the before-LLM hooks shrank it and it is sent once more. */
  OverflowRecovery: "overflow_recovery",
  /** A hook or host callback was still running after the abort's grace period and was given up on. */
  HookAbandoned: "hook_abandoned",
  /** A tool sent a progress update after its result; the update was dropped. */
  LateToolUpdate: "late_tool_update",
  /** An extension could not provide all it should to this turn (an MCP server that is down); the turn runs without it. */
  ExtensionDegraded: "extension_degraded",
  /** A model request failed on its model after its retries and is sent to the next model of the host's fallback list. */
  ModelFallback: "model_fallback",
  /** Steering messages that said nothing (no text but whitespace, no image) were left out: not sent, not kept in history. */
  SteeringDropped: "steering_dropped",
} as const;

/** One of the stable {@link RuntimeWarningCode} strings. */
export type RuntimeWarningCode = (typeof RuntimeWarningCode)[keyof typeof RuntimeWarningCode];

/** Every known warning code, in declaration order. */
export const RUNTIME_WARNING_CODES: readonly RuntimeWarningCode[] = Object.freeze(Object.values(RuntimeWarningCode));

/** A retried model request: which family, which attempt failed, how long the turn waits, and why. */
export interface RetryWarning {
  /** `retry_wait`, or `timeout_retried` when the attempt timed out. */
  code: "retry_wait" | "timeout_retried";
  /** In words, for a person: `rate limited, retrying in 2.1 s`. */
  message: string;
  /** `main` for the agent loop's requests, `auxiliary` for a hook's own. */
  family: "main" | "auxiliary";
  /** The 1-based attempt that failed. */
  attempt: number;
  /** How long the turn waits before the next attempt, in ms. */
  delayMs: number;
  /** The attempt's classified failure. */
  error: TurnError;
}

/** Images replaced by a placeholder in one request. */
export interface ImagesDroppedWarning {
  /** Always `images_dropped`: the discriminant a `switch (warning.code)` narrows on. */
  code: "images_dropped";
  /** In words, for a person. */
  message: string;
  /** How many images the request left out. */
  count: number;
}

/** A context overflow the turn recovers from by resending a smaller request. */
export interface OverflowRecoveryWarning {
  /** Always `overflow_recovery`: the discriminant a `switch (warning.code)` narrows on. */
  code: "overflow_recovery";
  /** In words, for a person. */
  message: string;
}

/** A hook or host callback given up on after an abort. */
export interface HookAbandonedWarning {
  /** Always `hook_abandoned`: the discriminant a `switch (warning.code)` narrows on. */
  code: "hook_abandoned";
  /** In words, for a person. */
  message: string;
  /** Which hook or callback (`beforeToolCallHook`, `allocateMessageId`, ...). */
  hook: string;
}

/** A tool's progress update that arrived after its result. */
export interface LateToolUpdateWarning {
  /** Always `late_tool_update`: the discriminant a `switch (warning.code)` narrows on. */
  code: "late_tool_update";
  /** In words, for a person. */
  message: string;
  /** The model's id of the call. */
  toolCallId: string;
  /** The tool that sent it. */
  toolName: string;
}

/**
 * An extension that cannot provide all it should to this turn, reported
 * when the turn starts: an MCP server that is down, so its tools are
 * missing or their calls will fail. The turn runs without what is missing.
 */
export interface ExtensionDegradedWarning {
  /** Always `extension_degraded`: the discriminant a `switch (warning.code)` narrows on. */
  code: "extension_degraded";
  /** In words, for a person: why, and what the turn runs without. */
  message: string;
  /** The extension that reported it. */
  extensionId: string;
  /** Tools of that extension this turn lacks or whose calls will fail; empty when none are known. */
  tools: string[];
}

/**
 * A model request that moved on to the host's next fallback model: the
 * model it failed on (its retries spent), the one it is sent to now, and
 * the failure. Models are named `provider/id`.
 */
export interface ModelFallbackWarning {
  /** Always `model_fallback`: the discriminant a `switch (warning.code)` narrows on. */
  code: "model_fallback";
  /** In words, for a person: `anthropic/claude-sonnet-4-5 is overloaded; answering with openai/gpt-5`. */
  message: string;
  /** `main` for the agent loop's requests. */
  family: "main" | "auxiliary";
  /** The model that failed, `provider/id`. */
  from: string;
  /** The model the request is sent to next, `provider/id`. */
  to: string;
  /** Which of the host's fallback triggers it was (`overloaded`, `unavailable`, `quota`, ...). */
  trigger: string;
  /** The failure of `from`. */
  error: TurnError;
}

/**
 * Steering messages the host handed over mid-turn that said nothing: text
 * empty or only whitespace, and no image. A provider drops such a message
 * or refuses the request, so the turn leaves them out: they are neither
 * sent, nor delivered into history, nor handed back, and they never make
 * the turn go on by themselves.
 */
export interface SteeringDroppedWarning {
  /** Always `steering_dropped`: the discriminant a `switch (warning.code)` narrows on. */
  code: "steering_dropped";
  /** In words, for a person. */
  message: string;
  /** How many messages of one hand-over were left out. */
  count: number;
  /** Where they came from: the host's steering poll, or an `onStepEndHook`'s `enqueue`. */
  source: "getSteeringMessages" | "enqueue";
}

/**
 * Payload of `runtime.warning`: a discriminated union on `code`, each with
 * a human `message` and the structured fields a UI needs, so it never
 * parses text. A warning never changes the turn; details stay in
 * `debug.trace`.
 */
export type RuntimeWarningPayload =
  | RetryWarning
  | ImagesDroppedWarning
  | OverflowRecoveryWarning
  | HookAbandonedWarning
  | LateToolUpdateWarning
  | ExtensionDegradedWarning
  | ModelFallbackWarning
  | SteeringDroppedWarning;
