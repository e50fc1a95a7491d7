/**
 * Stable error codes carried by a `failed` turn outcome and by a
 * `session.status` event with status `failed`.
 *
 * Hosts branch on these strings; they never change meaning between releases.
 * New codes may be added, so a host's `switch` should keep a default branch.
 */
export const ErrorCode = {
  /** The provider refused the request for rate limiting (HTTP 429, "rate limit"). */
  RateLimited: "rate_limited",
  /** Credentials were missing, invalid or lacked permission (HTTP 401/403). */
  Auth: "auth",
  /** The account ran out of quota or credit (billing, "insufficient_quota"). */
  Quota: "quota",
  /** The request did not fit the model's context window (or HTTP 413). */
  ContextOverflow: "context_overflow",
  /** A request, first-event or idle timeout fired. */
  Timeout: "timeout",
  /** The connection failed or was reset before a response completed. */
  Network: "network",
  /** The provider failed on its side (HTTP 5xx, overloaded). */
  Upstream: "upstream",
  /** The provider rejected the request as malformed (HTTP 400-class other than the above). */
  InvalidRequest: "invalid_request",
  /** The provider's content filter refused the request or the response. */
  ContentFilter: "content_filter",
  /**
   * A limit the host set for the turn (steps, output tokens, cost) was
   * reached; the turn ended after the step that reached it. The error's
   * `budget` names the limit and the measured value.
   */
  BudgetExceeded: "budget_exceeded",
  /** A host hook failed, or decided to fail the turn. */
  Hook: "hook",
  /** Anything else: a bug, an unexpected exception. */
  Internal: "internal",
} as const;

/** One of the stable {@link ErrorCode} strings. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Every known error code, in declaration order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.values(ErrorCode));

/** True when `value` is one of the stable {@link ErrorCode} strings. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}
