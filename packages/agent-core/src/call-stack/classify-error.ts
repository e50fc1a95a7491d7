import { describeValue, isUnreadable } from "@turnkit/agent-loop/internal";
import type { AssistantMessage, ProviderResponse } from "@mariozechner/pi-ai";
import type { ErrorCode } from "@turnkit/protocol";
import { TurnkitConfigError, TurnkitError } from "../errors.js";
import {
  ErrorTextKind,
  errorTextKind,
  mentionsContentFilter,
  mentionsContextOverflow,
  mentionsPerMinuteLimit,
  mentionsQuota,
  parseStatus,
} from "./error-text-patterns.js";
import { parseRetryAfterText, retryAfterFromHeaders } from "./retry-after.js";
import { LLM_TIMEOUT_MESSAGE_PREFIX, LlmTimeoutError } from "./stream-errors.js";

/**
 * What went wrong with a model request (or anything else), in the terms the
 * turn outcome and the retry layer need. Produced only by {@link classifyError}.
 */
export interface ClassifiedError {
  /** Stable code for the turn outcome. */
  code: ErrorCode;
  /** Human-readable description (the provider's text where there is one). */
  message: string;
  /**
   * True when sending the same request again may succeed: rate
   * limits, 408, 5xx except 501, overloaded, timeouts, network and TLS
   * failures. Never for an abort, a quota (also one reported under a 5xx),
   * a refusal or an overflow. The full
   * precedence is the table in `docs/error-classification.md`.
   */
  retryable: boolean;
  /** How long the provider asked us to wait, when the error exposes it. Not capped here. */
  retryAfterMs?: number;
  /** The HTTP status, when the error exposes it (as a field or as leading text such as `"429 ..."`). */
  status?: number;
  /**
   * True when the caller cancelled. An abort is not a failure: the outcome is
   * `aborted`, and `code` is only a placeholder (`internal`). Check this first.
   */
  aborted?: boolean;
}

/** The property under which the call stack attaches a {@link ClassifiedError} to a failed message. */
export const CLASSIFIED_ERROR_PROPERTY = "turnkitError";

/**
 * Attaches `classified` to a failed assistant message as the non-enumerable
 * property {@link CLASSIFIED_ERROR_PROPERTY} (`turnkitError`). Non-enumerable
 * keeps the message's serialised form (history, transcripts) unchanged; a
 * copy of the message loses it, which is fine because {@link classifyError}
 * reaches the same code from the message text.
 */
export function attachClassifiedError(message: AssistantMessage, classified: ClassifiedError): AssistantMessage {
  Object.defineProperty(message, CLASSIFIED_ERROR_PROPERTY, {
    value: classified,
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return message;
}

/** The classification attached by {@link attachClassifiedError}, if any; `undefined` for anything that is no object. */
export function getAttachedClassifiedError(message: AssistantMessage): ClassifiedError | undefined {
  if (!isRecord(message as unknown)) return undefined;
  const value = (message as unknown as Record<string, unknown>)[CLASSIFIED_ERROR_PROPERTY];
  return isClassifiedError(value) ? value : undefined;
}

/**
 * The one place that classifies errors. Accepts a thrown value, a failed
 * pi-ai `AssistantMessage` (stopReason `error`/`aborted` with
 * `errorMessage`) or bare error text, and optionally the HTTP `response`
 * the failure came with (status and headers, as reported through a stream
 * function's `onResponse`). Never throws.
 *
 * Decides by HTTP status first where there is one (a `status` field, the
 * response, or a status in the text such as `"429 ..."` or
 * `"[Error] 429 ..."`), then by the text; the order is the table in
 * `docs/error-classification.md`, and the test of that table reads it row
 * by row. `retryAfterMs` comes from `retry-after-ms` / `retry-after`
 * headers (of the response or of a thrown error), else from hints in the
 * text (`"Please try again in 1.5s"`).
 */
export function classifyError(error: unknown, response?: ProviderResponse): ClassifiedError {
  try {
    const classified = classifyUnknown(error);
    return response && response.status >= 400 ? withResponse(classified, response) : classified;
  } catch {
    return { code: "internal", message: "Unclassifiable error", retryable: false };
  }
}

function classifyUnknown(error: unknown): ClassifiedError {
  if (typeof error === "string") return classifyText(error, { fromProvider: true });
  if (isAssistantMessage(error)) return classifyMessage(error);
  if (LlmTimeoutError.isInstance(error)) return { code: "timeout", message: error.message, retryable: true };
  if (TurnkitConfigError.isInstance(error)) return { code: "internal", message: error.message, retryable: false };
  if (isAbortError(error)) return abortedResult(errorMessageOf(error) || "Request was aborted");
  if (isDomTimeoutError(error))
    return { code: "timeout", message: errorMessageOf(error) || "Request timed out", retryable: true };
  if (TurnkitError.isInstance(error) && isKnownErrorCode(error.code)) {
    return { code: error.code, message: error.message, retryable: RETRYABLE_CODES.has(error.code) };
  }
  if (typeof error === "object" && error !== null) return classifyObject(error as Record<string, unknown>);
  return classifyText(String(error), { fromProvider: false });
}

/**
 * pi-ai 0.73.1's Anthropic provider turns `stop_reason: "refusal"` and
 * `"sensitive"` (the only stop reasons it maps to `error`) into this fixed
 * text, dropping the reason; its Google provider does the same for safety
 * finish reasons among others, so only the Anthropic case is certain.
 */
const PI_AI_UNKNOWN_STOP_TEXT = "An unknown error occurred";

function classifyMessage(message: AssistantMessage): ClassifiedError {
  const attached = getAttachedClassifiedError(message);
  if (attached) return attached;
  const text = message.errorMessage ?? "";
  if (message.stopReason === "aborted") return abortedResult(text || "Request was aborted");
  if (message.api === "anthropic-messages" && text === PI_AI_UNKNOWN_STOP_TEXT) {
    return { code: "content_filter", message: text, retryable: false };
  }
  return classifyText(text || "Provider returned an error", { fromProvider: true });
}

function classifyObject(error: Record<string, unknown>): ClassifiedError {
  const text = errorMessageOf(error) || safeJson(error);
  const response = isRecord(error.response) ? error.response : undefined;
  const status = firstStatus(error.status, error.statusCode, response?.status) ?? parseStatus(text);
  const retryAfterMs = retryAfterFromHeaders(error.headers ?? response?.headers) ?? parseRetryAfterText(text);
  const networkCode = findNetworkCode(error);
  if (status === undefined && networkCode !== undefined) {
    return withRetryAfter({ code: "network", message: text || networkCode, retryable: true }, retryAfterMs);
  }
  const providerCode = typeof error.code === "string" ? error.code : undefined;
  const classified = classifyText(providerCode && !text.includes(providerCode) ? `${text} (${providerCode})` : text, {
    fromProvider: status !== undefined,
    status,
  });
  // Keep the provider's own text as the message; the code was only a hint.
  return withRetryAfter({ ...classified, message: text }, retryAfterMs ?? classified.retryAfterMs);
}

/**
 * Adds what the HTTP response says to a classification: its status when the
 * error itself had none (the text is classified again under that status),
 * and its Retry-After, which wins over a hint in the text. An abort stays as
 * it is; a timeout (Turnkit's own, or one the provider reports: a 408, "Request
 * timed out") stays a timeout but takes the response's Retry-After as any
 * other failure does.
 */
function withResponse(classified: ClassifiedError, response: ProviderResponse): ClassifiedError {
  if (classified.aborted) return classified;
  if (classified.code === "timeout")
    return withRetryAfter(classified, retryAfterFromHeaders(response.headers) ?? classified.retryAfterMs);
  const reclassified =
    classified.status === undefined
      ? classifyText(classified.message, { fromProvider: true, status: response.status })
      : classified;
  const merged = { ...reclassified, message: classified.message };
  return withRetryAfter(merged, retryAfterFromHeaders(response.headers) ?? merged.retryAfterMs);
}

interface TextClassifyOptions {
  /** The text came from a provider response (unknown text is `upstream`, not `internal`). */
  fromProvider: boolean;
  /** A status known from a field; otherwise parsed from the text. */
  status?: number;
}

function classifyText(rawText: string, options: TextClassifyOptions): ClassifiedError {
  const message = rawText.trim();
  const status = options.status ?? parseStatus(message);
  const base = { message, ...statusField(status) };
  const retryAfterMs = parseRetryAfterText(message);
  const result = (code: ErrorCode, retryable: boolean): ClassifiedError =>
    withRetryAfter({ ...base, code, retryable }, retryAfterMs);

  if (message.startsWith(LLM_TIMEOUT_MESSAGE_PREFIX)) return result("timeout", true);
  if (status !== undefined && status >= 400) {
    const [code, retryable] = byStatus(status, message);
    return result(code, retryable);
  }
  const kind = errorTextKind(message);
  if (kind === undefined) return result(options.fromProvider ? "upstream" : "internal", false);
  switch (kind) {
    case ErrorTextKind.PerMinuteLimit:
    case ErrorTextKind.RateLimit:
      return result("rate_limited", true);
    case ErrorTextKind.ContextOverflow:
      return result("context_overflow", false);
    case ErrorTextKind.Quota:
      return result("quota", false);
    case ErrorTextKind.ContentFilter:
      return result("content_filter", false);
    case ErrorTextKind.Auth:
      return result("auth", false);
    case ErrorTextKind.Overloaded:
    case ErrorTextKind.ServerError:
      return result("upstream", true);
    case ErrorTextKind.Network:
      return result("network", true);
    case ErrorTextKind.Timeout:
      return result("timeout", true);
    case ErrorTextKind.Abort:
      return abortedResult(message);
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** The status rows of the table: the status decides, the text only splits a status into two codes. */
function byStatus(status: number, text: string): [ErrorCode, boolean] {
  const quota = mentionsQuota(text) && !mentionsPerMinuteLimit(text);
  if (status === 413) return ["context_overflow", false];
  if (status === 402) return ["quota", false];
  if (status === 429) return quota ? ["quota", false] : ["rate_limited", true];
  if (status === 401 || status === 403) return quota ? ["quota", false] : ["auth", false];
  if (status === 408) return ["timeout", true];
  // A quota reported under a server error (MiniMax answers plan exhaustion with a 500): waiting does not help.
  if (status >= 500 && quota) return ["quota", false];
  if (status === 501) return ["upstream", false];
  if (status >= 500) return ["upstream", true];
  if (mentionsContextOverflow(text)) return ["context_overflow", false];
  if (quota) return ["quota", false];
  if (mentionsContentFilter(text)) return ["content_filter", false];
  return ["invalid_request", false];
}

/** Node/undici codes of a dropped connection or a broken TLS record (`ERR_SSL_*`). */
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EPROTO",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "ERR_STREAM_PREMATURE_CLOSE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

function isNetworkCode(code: string): boolean {
  return NETWORK_CODES.has(code) || code.startsWith("ERR_SSL_");
}

const KNOWN_CODES = new Set<string>([
  "rate_limited",
  "auth",
  "quota",
  "context_overflow",
  "timeout",
  "network",
  "upstream",
  "invalid_request",
  "content_filter",
  "hook",
  "internal",
]);
const RETRYABLE_CODES = new Set<string>(["rate_limited", "timeout", "network"]);

function isKnownErrorCode(code: string): code is ErrorCode {
  return KNOWN_CODES.has(code);
}

/** A Node/undici network or TLS error code on the error or along its `cause` chain. */
function findNetworkCode(error: Record<string, unknown>): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && isRecord(current); depth++) {
    const code = current.code;
    if (typeof code === "string" && isNetworkCode(code)) return code;
    current = current.cause;
  }
  return undefined;
}

function isAbortError(error: unknown): boolean {
  if (!isRecord(error)) return false;
  // APIUserAbortError: the OpenAI SDK's abort, whose `name` is the generic "Error".
  return error.name === "AbortError" || error.constructor?.name === "APIUserAbortError";
}

function isDomTimeoutError(error: unknown): boolean {
  return isRecord(error) && error.name === "TimeoutError";
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return isRecord(value) && value.role === "assistant" && typeof value.stopReason === "string";
}

function isClassifiedError(value: unknown): value is ClassifiedError {
  return (
    isRecord(value) &&
    typeof value.code === "string" &&
    typeof value.retryable === "boolean" &&
    typeof value.message === "string"
  );
}

function abortedResult(message: string): ClassifiedError {
  return { code: "internal", message, retryable: false, aborted: true };
}

function withRetryAfter(classified: ClassifiedError, retryAfterMs: number | undefined): ClassifiedError {
  return retryAfterMs === undefined ? classified : { ...classified, retryAfterMs };
}

function statusField(status: number | undefined): { status?: number } {
  return status === undefined ? {} : { status };
}

function firstStatus(...values: unknown[]): number | undefined {
  for (const value of values) {
    if (typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  return undefined;
}

function errorMessageOf(error: unknown): string {
  return isRecord(error) && typeof error.message === "string" ? error.message : "";
}

/** What a thrown value that is no error says: its JSON text (a string quoted, in full), else a description. Never throws. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? describeValue(value);
  } catch {
    return describeValue(value);
  }
}

/** An object whose fields can be read (a list too); false for a revoked proxy, of which nothing can be read. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isUnreadable(value);
}
