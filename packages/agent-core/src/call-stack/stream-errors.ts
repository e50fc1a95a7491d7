import { TURN_DEFAULTS } from "../defaults.js";
import { describeValue } from "@turnkit/agent-loop/internal";
import { TurnkitError } from "../errors.js";

/** Which watchdog fired: no first event, too long between events, or the whole request. */
export type LlmTimeoutKind = "first_event" | "idle" | "request";

const TIMEOUT_TEXT: Record<LlmTimeoutKind, string> = {
  first_event: "no first event",
  idle: "no event",
  request: "no complete response",
};

/** The settings that bound each watchdog, as a host writes them: the option, and the environment variable read when the option is absent. */
const TIMEOUT_OPTION: Record<LlmTimeoutKind, string> = {
  first_event: `llm.firstEventTimeoutMs or ${TURN_DEFAULTS.llmFirstEventTimeoutEnv}`,
  idle: `llm.streamIdleTimeoutMs or ${TURN_DEFAULTS.llmStreamIdleTimeoutEnv}`,
  request: "the request's timeoutMs",
};

/**
 * A model request that a Turnkit watchdog ended. `classifyError`
 * maps it to code `timeout`, retryable. A caller's abort is never turned into
 * this error.
 *
 * Its message always starts with {@link LLM_TIMEOUT_MESSAGE_PREFIX}, so the
 * classification survives when only the text of a failed message is left
 * (for instance after the message was serialised), and says how to raise the
 * bound: the option's name (`llm.firstEventTimeoutMs`,
 * `llm.streamIdleTimeoutMs`), the environment variable read when the option
 * is absent (`TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS`,
 * `TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS`) and the current value.
 */
export class LlmTimeoutError extends TurnkitError {
  /** Which watchdog fired. */
  readonly kind: LlmTimeoutKind;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(kind: LlmTimeoutKind, timeoutMs: number) {
    if (typeof kind !== "string" || !Object.hasOwn(TIMEOUT_TEXT, kind))
      throw new TypeError(
        `LlmTimeoutError: kind must be "first_event", "idle" or "request", got ${describeValue(kind)}`,
      );
    if (typeof timeoutMs !== "number")
      throw new TypeError(`LlmTimeoutError: timeoutMs must be a number, got ${describeValue(timeoutMs)}`);
    super(
      "timeout",
      `${LLM_TIMEOUT_MESSAGE_PREFIX} ${TIMEOUT_TEXT[kind]} within ${timeoutMs} ms (${kind} timeout). ` +
        `Raise ${TIMEOUT_OPTION[kind]} (now ${timeoutMs} ms), or set it to 0 to turn this watchdog off.`,
    );
    this.name = "LlmTimeoutError";
    this.kind = kind;
    this.timeoutMs = timeoutMs;
  }

  /** True for an LlmTimeoutError from any copy of the package. */
  static override isInstance(value: unknown): value is LlmTimeoutError {
    return TurnkitError.isInstance(value) && (value as Error).name === "LlmTimeoutError";
  }
}

/** The stable start of every {@link LlmTimeoutError} message. */
export const LLM_TIMEOUT_MESSAGE_PREFIX = "LLM stream timed out:";

/**
 * The `errorMessage` of a request whose stream ended (its iterator finished)
 * without a `done` or `error` event: a dropped connection as far as the
 * caller can tell. `classifyError` maps it to `network`, retryable, so the
 * retry layer sends the request again when nothing was shown yet.
 */
export const STREAM_ENDED_WITHOUT_FINAL_EVENT = "The stream ended without a final event";

/**
 * Why a read of a provider's stream (its iterator's `next()`) answered no
 * iterator result (`{ value, done }`), or `undefined` when it answered an
 * object. A hand-written stream may answer `null`, a number, nothing.
 */
export function iteratorResultProblem(result: unknown): string | undefined {
  if (typeof result === "object" && result !== null) return undefined;
  return `a read of its stream answered ${describeValue(result)}, not an iterator result ({ value, done })`;
}
