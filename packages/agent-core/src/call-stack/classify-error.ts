import { isContextOverflow, type AssistantMessage } from "@mariozechner/pi-ai";
import type { ErrorCode } from "@turnkit/protocol";
import { TurnkitConfigError, TurnkitError } from "../errors.js";
import { LLM_TIMEOUT_MESSAGE_PREFIX, LlmTimeoutError } from "./stream-errors.js";

/**
 * What went wrong with a model request (or anything else), in the terms the
 * turn outcome and the retry layer need. Produced only by {@link classifyError}.
 */
export interface ClassifiedError {
  /** Stable code for the turn outcome (SPEC T3). */
  code: ErrorCode;
  /** Human-readable description (the provider's text where there is one). */
  message: string;
  /**
   * True when sending the same request again may succeed (SPEC W3): 429, 408,
   * 5xx except 501, overloaded, timeouts, network resets. Never for an abort.
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

/** The classification attached by {@link attachClassifiedError}, if any. */
export function getAttachedClassifiedError(message: AssistantMessage): ClassifiedError | undefined {
  const value = (message as unknown as Record<string, unknown>)[CLASSIFIED_ERROR_PROPERTY];
  return isClassifiedError(value) ? value : undefined;
}

/**
 * The one place that classifies errors. Accepts a thrown value, a failed
 * pi-ai `AssistantMessage` (stopReason `error`/`aborted` with
 * `errorMessage`) or bare error text.
 *
 * pi-ai reports HTTP failures only as text (`"429 Rate limit ..."`,
 * `"503 status code (no body)"`), so the status is parsed from the text when
 * no `status` field exists; `Retry-After` is read from `retry-after-ms` /
 * `retry-after` headers when the error carries headers, else from hints in
 * the text (`"Please try again in 1.5s"`). Never throws.
 */
export function classifyError(error: unknown): ClassifiedError {
  try {
    return classifyUnknown(error);
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
  if (isDomTimeoutError(error)) return { code: "timeout", message: errorMessageOf(error) || "Request timed out", retryable: true };
  if (TurnkitError.isInstance(error) && isKnownErrorCode(error.code)) {
    return { code: error.code, message: error.message, retryable: RETRYABLE_CODES.has(error.code) };
  }
  if (typeof error === "object" && error !== null) return classifyObject(error as Record<string, unknown>);
  return classifyText(String(error), { fromProvider: false });
}

function classifyMessage(message: AssistantMessage): ClassifiedError {
  const attached = getAttachedClassifiedError(message);
  if (attached) return attached;
  const text = message.errorMessage ?? "";
  if (message.stopReason === "aborted") return abortedResult(text || "Request was aborted");
  if (message.stopReason === "error" && isContextOverflow(message)) {
    return { code: "context_overflow", message: text, retryable: false, ...statusField(parseStatus(text)) };
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
  if (status === 413 || looksLikeOverflow(message)) return result("context_overflow", false);
  if (status === 402 || QUOTA_PATTERN.test(message)) return result("quota", false);
  if (status !== undefined) {
    if (status === 401 || status === 403) return result("auth", false);
    if (status === 408) return result("timeout", true);
    if (status === 429) return result("rate_limited", true);
    if (CONTENT_FILTER_PATTERN.test(message)) return result("content_filter", false);
    if (status === 501) return result("upstream", false);
    if (status >= 500) return result("upstream", true);
    if (status >= 400) return result("invalid_request", false);
  }
  if (CONTENT_FILTER_PATTERN.test(message)) return result("content_filter", false);
  if (AUTH_PATTERN.test(message)) return result("auth", false);
  if (RATE_LIMIT_PATTERN.test(message)) return result("rate_limited", true);
  if (OVERLOADED_PATTERN.test(message)) return result("upstream", true);
  if (NETWORK_PATTERN.test(message)) return result("network", true);
  if (TIMEOUT_PATTERN.test(message)) return result("timeout", true);
  if (ABORT_PATTERN.test(message)) return abortedResult(message);
  return result(options.fromProvider ? "upstream" : "internal", false);
}

const QUOTA_PATTERN =
  /insufficient_quota|exceeded your current quota|check your plan and billing|billing (?:hard )?limit|credit balance|out of credits?|insufficient (?:funds|balance|credits?)|payment required/i;
const CONTENT_FILTER_PATTERN = /content[_ -]?filter|content[_ ]policy|safety system|responsible ai policy|blocked (?:by|due to) (?:the )?safety/i;
const AUTH_PATTERN =
  /invalid[_ ]api[_ ]key|incorrect api key|no api key|api key (?:is )?(?:required|missing|invalid|not valid)|unauthori[sz]ed|authentication[_ ](?:error|failed)|permission[_ ]denied|invalid[_ ]x-api-key|forbidden/i;
const RATE_LIMIT_PATTERN = /rate[_ -]?limit|too many requests|throttl/i;
const OVERLOADED_PATTERN = /overloaded|server is busy|service unavailable|temporarily unavailable/i;
const NETWORK_PATTERN =
  /ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|ENETDOWN|EHOSTUNREACH|ENOTFOUND|UND_ERR_[A-Z_]+|socket hang up|connection error|connection (?:was )?(?:reset|closed|refused)|other side closed|fetch failed|network ?error|network_error|^terminated$/i;
const TIMEOUT_PATTERN = /timed? ?out|timeout/i;
const ABORT_PATTERN = /^(?:request was )?abort(?:ed)?\.?$|\bwas aborted\b|aborterror/i;

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

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

function looksLikeOverflow(text: string): boolean {
  if (/request entity too large|payload too large|request too large/i.test(text)) return true;
  return isContextOverflow({ stopReason: "error", errorMessage: text } as AssistantMessage);
}

/** A 4xx/5xx status from text such as `"429 Rate limit"`, `"status code 503"`, `"HTTP 502"`, `{"code":429}`. */
function parseStatus(text: string): number | undefined {
  const match =
    /^\s*([45]\d\d)(?=[\s:,.]|$)/.exec(text) ??
    /\bstatus(?:[ _]code)?["']?\s*[:=]?\s*([45]\d\d)\b/i.exec(text) ??
    /\bHTTP(?:\/\d(?:\.\d)?)?\s+([45]\d\d)\b/i.exec(text) ??
    /"code"\s*:\s*([45]\d\d)\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** A wait hint in error text: `retry-after-ms: 1200`, `retry-after: 3`, `Please try again in 1.5s`, `"retryDelay": "20s"`. */
function parseRetryAfterText(text: string): number | undefined {
  const ms = /retry[-_ ]after[-_ ]ms["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i.exec(text);
  if (ms) return Math.round(Number(ms[1]));
  const seconds = /retry[-_ ]after["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i.exec(text);
  if (seconds) return Math.round(Number(seconds[1]) * 1000);
  const google = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/i.exec(text);
  if (google) return Math.round(Number(google[1]) * 1000);
  const phrase =
    /(?:try again|retry)(?: after| in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/i.exec(text);
  if (phrase) {
    const unit = phrase[2].toLowerCase();
    const factor = unit.startsWith("ms") || unit.startsWith("milli") ? 1 : unit.startsWith("m") ? 60_000 : 1000;
    return Math.round(Number(phrase[1]) * factor);
  }
  return undefined;
}

/** `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date), from a Headers object or a plain record. */
function retryAfterFromHeaders(headers: unknown): number | undefined {
  const read = headerReader(headers);
  if (!read) return undefined;
  const ms = read("retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const value = read("retry-after");
  if (value === undefined || value.trim() === "") return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Math.round(Number(value) * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function headerReader(headers: unknown): ((name: string) => string | undefined) | undefined {
  if (!isRecord(headers)) return undefined;
  if (typeof headers.get === "function") {
    const get = headers.get as (name: string) => unknown;
    return (name) => {
      const value = get.call(headers, name);
      return typeof value === "string" ? value : undefined;
    };
  }
  return (name) => {
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : value == null ? undefined : String(value);
    }
    return undefined;
  };
}

/** A Node/undici network error code on the error or along its `cause` chain. */
function findNetworkCode(error: Record<string, unknown>): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && isRecord(current); depth++) {
    const code = current.code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
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
  return isRecord(value) && typeof value.code === "string" && typeof value.retryable === "boolean" && typeof value.message === "string";
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

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
