import { isContextOverflow, type AssistantMessage } from "@mariozechner/pi-ai";

/**
 * What `classifyError` recognises in error text. Each pattern names the
 * providers whose wording it matches; the fixtures in
 * `test/call-stack/fixtures/provider-errors.ts` hold the full bodies with
 * their sources, and `docs/error-classification.md` gives the order in which
 * the patterns are tried.
 */

/**
 * A limit per minute (requests or tokens): waiting helps. OpenAI's
 * `tokens per min (TPM)` / `requests per min (RPM)`, Gemini's
 * `GenerateRequestsPerMinutePerProjectPerModel` quota ids and
 * `requests per minute` quota metrics.
 */
const PER_MINUTE_PATTERN = /\bper[ _-]?min(?:ute)?\b|PerMinute|\((?:TPM|RPM)\)/i;

/**
 * Quota, plan or credit exhaustion: waiting a few seconds does not help.
 * OpenAI `insufficient_quota` / "exceeded your current quota, please check
 * your plan and billing details"; Anthropic "credit balance is too low" and
 * "reached your specified API usage limits"; Gemini "exhausted your daily
 * quota"; GitHub Copilot `quota_exceeded`; Codex `usage_limit_reached` and
 * "You've hit your usage limit"; Claude "usage limit reached"; MiniMax
 * "5-hour usage limit reached for Token Plan"; coding-plan gateways' "token
 * plan exhausted"; OpenAI-compatible resellers' `insufficient_user_quota`,
 * "account balance is insufficient", "user quota is not enough"; MiniMax's
 * own quota codes in a JSON body, whatever the message beside them
 * (`"status_code":1008`, insufficient balance; `"status_code":2056`, plan
 * usage limit exceeded), which it also sends under a 500. Gemini's bare
 * "Resource has been exhausted (e.g. check quota)" is a rate limit and
 * deliberately does not match.
 */
const QUOTA_PATTERN = new RegExp(
  [
    "insufficient_(?:user_)?quota",
    "quota is not enough",
    "balance (?:is )?(?:insufficient|too low)",
    "quota[_ ]exceeded",
    "exceeded (?:your|the) (?:current |daily |monthly )?quota",
    "exhausted (?:your |the )?(?:daily |monthly |weekly )?quota",
    "quota (?:has been |is )?(?:exhausted|used up|depleted)",
    "no (?:remaining )?quota",
    "usage[_ ]limit[_ ](?:reached|exceeded)",
    "usage limits? (?:has been |have been )?(?:reached|exceeded)",
    "hit your (?:usage )?limit",
    "reached your (?:specified )?(?:api )?usage limits?",
    "plan (?:is |has been )?exhausted",
    "plan (?:limit|quota) (?:reached|exceeded)",
    "check your plan and billing",
    "billing (?:hard )?limit",
    "credit balance",
    "out of credits?",
    "insufficient (?:funds|balance|credits?|account balance)",
    "payment required",
    '"status_code"\\s*:\\s*(?:1008|2056)\\b',
  ].join("|"),
  "i",
);

/**
 * A refusal or a safety block of the provider. OpenAI and Azure
 * `content_filter` (pi-ai: "Provider finish_reason: content_filter"), Azure
 * `ResponsibleAIPolicyViolation`, Anthropic `stop_reason: refusal` /
 * `sensitive`, later pi-ai's "The model refused to complete the request",
 * Gemini `blockReason` / `finishReason: SAFETY`, Bedrock guardrails, and
 * "refused" on its own. Written so that "connection refused" and
 * `ECONNREFUSED` never match.
 */
const CONTENT_FILTER_PATTERN = new RegExp(
  [
    "content[_ -]?filter",
    "content (?:management )?policy",
    "content_policy",
    "safety system",
    "responsible ?ai ?policy",
    "blocked (?:by|due to) (?:the )?safety",
    "\\bblock_?reason\\b",
    "(?:stop|finish)_?reason[\"']?\\s*[:=]?\\s*[\"']?(?:refusal|sensitive|safety|prohibited_content|blocklist|spii)\\b",
    "\\brefusal\\b",
    "(?<!connection (?:was |is )?)\\brefused\\b",
    "guardrail[_ ]intervened",
  ].join("|"),
  "i",
);

/** Missing or rejected credentials (OpenAI, Anthropic, Google, pi-ai's "No API key for provider"). */
const AUTH_PATTERN =
  /invalid[_ ]api[_ ]key|incorrect api key|no api key|api key (?:is )?(?:required|missing|invalid|not valid)|unauthori[sz]ed|authentication[_ ](?:error|failed)|permission[_ ]denied|invalid[_ ]x-api-key|forbidden/i;

/** Rate limiting without a quota: OpenAI "Rate limit reached", Anthropic `rate_limit_error`, Bedrock throttling, Gemini `RESOURCE_EXHAUSTED`. */
const RATE_LIMIT_PATTERN = /rate[_ -]?limit|too many requests|throttl|resource[_ ]?(?:has been )?exhausted/i;

/** The provider is busy: Anthropic `overloaded_error` (529), "service unavailable". */
const OVERLOADED_PATTERN = /overloaded|server is busy|service unavailable|temporarily unavailable/i;

/**
 * The provider's own server failed, said in words with no status: Anthropic's
 * `api_error` (its 500) as a stream's error event, "internal server error",
 * Gemini's "An internal error has occurred", OpenAI's "The server had an
 * error while processing your request" and `server_error`, a proxy's "Bad
 * Gateway" page.
 */
const SERVER_ERROR_PATTERN =
  /\bapi_error\b|\bserver_error\b|internal (?:server )?error|server had an error|bad gateway|upstream connect error/i;

/**
 * A dropped or broken connection. Node/undici errno codes and texts, the
 * OpenAI and Anthropic SDKs' "Connection error.", undici's "terminated" when
 * a body is cut; TLS record failures (OpenSSL "decryption failed or bad
 * record mac", Node's `ERR_SSL_*` codes and `EPROTO`, Chromium's
 * `net::ERR_SSL_*` as Electron hosts report them); and a stream that ended
 * without a final event (Turnkit's call stack, the loop and the proxy client
 * all say "stream ended without ...").
 */
const NETWORK_PATTERN = new RegExp(
  [
    "ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|ENETDOWN|EHOSTUNREACH|ENOTFOUND|EPROTO\\b",
    "UND_ERR_[A-Z_]+",
    "socket hang up",
    "connection error",
    "connection (?:was )?(?:reset|closed|refused)",
    "other side closed",
    "fetch failed",
    "network ?error|network_error",
    "^terminated$",
    "premature close",
    "(?:net::)?ERR_SSL_[A-Z_]+",
    "bad record mac",
    "decryption failed",
    "SSL routines",
    "ssl3_(?:get|read)_(?:record|bytes)",
    "stream ended without",
  ].join("|"),
  "i",
);

const TIMEOUT_PATTERN = /timed? ?out|timeout/i;
const ABORT_PATTERN = /^(?:request was )?abort(?:ed)?\.?$|\bwas aborted\b|aborterror/i;

/** Oversized requests pi-ai's `isContextOverflow` does not know: HTTP 413 texts and their spelled-out forms. */
const OVERSIZED_REQUEST_PATTERN = /request entity too large|payload too large|request too large/i;

/** The error text families `classifyError` tells apart, in the order it tries them when no status decides. */
export const ErrorTextKind = {
  PerMinuteLimit: "per_minute_limit",
  ContextOverflow: "context_overflow",
  Quota: "quota",
  ContentFilter: "content_filter",
  Auth: "auth",
  RateLimit: "rate_limit",
  Overloaded: "overloaded",
  ServerError: "server_error",
  Network: "network",
  Timeout: "timeout",
  Abort: "abort",
} as const;

/** One of {@link ErrorTextKind}. */
export type ErrorTextKind = (typeof ErrorTextKind)[keyof typeof ErrorTextKind];

/** True when `text` names a limit per minute (tokens or requests). */
export function mentionsPerMinuteLimit(text: string): boolean {
  return PER_MINUTE_PATTERN.test(text);
}

/** True when `text` reports quota, plan or credit exhaustion (whatever the window). */
export function mentionsQuota(text: string): boolean {
  return QUOTA_PATTERN.test(text);
}

/** True when `text` reports a refusal or a safety block. */
export function mentionsContentFilter(text: string): boolean {
  return CONTENT_FILTER_PATTERN.test(text);
}

/** pi-ai's context-overflow patterns, plus the spelled-out 413 texts. */
export function mentionsContextOverflow(text: string): boolean {
  if (OVERSIZED_REQUEST_PATTERN.test(text)) return true;
  return isContextOverflow({ stopReason: "error", errorMessage: text } as AssistantMessage);
}

/**
 * The first family `text` belongs to, trying them in the order of
 * {@link ErrorTextKind}; `undefined` when none matches.
 */
export function errorTextKind(text: string): ErrorTextKind | undefined {
  if (
    mentionsPerMinuteLimit(text) &&
    (mentionsQuota(text) || RATE_LIMIT_PATTERN.test(text) || OVERSIZED_REQUEST_PATTERN.test(text))
  ) {
    return ErrorTextKind.PerMinuteLimit;
  }
  if (mentionsContextOverflow(text)) return ErrorTextKind.ContextOverflow;
  if (mentionsQuota(text)) return ErrorTextKind.Quota;
  if (mentionsContentFilter(text)) return ErrorTextKind.ContentFilter;
  if (AUTH_PATTERN.test(text)) return ErrorTextKind.Auth;
  if (RATE_LIMIT_PATTERN.test(text)) return ErrorTextKind.RateLimit;
  if (OVERLOADED_PATTERN.test(text)) return ErrorTextKind.Overloaded;
  if (SERVER_ERROR_PATTERN.test(text)) return ErrorTextKind.ServerError;
  if (NETWORK_PATTERN.test(text)) return ErrorTextKind.Network;
  if (TIMEOUT_PATTERN.test(text)) return ErrorTextKind.Timeout;
  if (ABORT_PATTERN.test(text)) return ErrorTextKind.Abort;
  return undefined;
}

/**
 * A 4xx/5xx status in error text: at the start (`"429 Rate limit"`), behind
 * a tag or an error label (`"[Error] 429 ..."`, `"API Error: 429 ..."`,
 * `"Error code: 429 - {...}"`, `"API Error (429 ..."`), or named
 * (`"status code 503"`, `"status_code":429`, `"got status: 429"`,
 * `"HTTP 502"`, `{"code":429}`).
 */
export function parseStatus(text: string): number | undefined {
  const match =
    /^\s*(?:\[[^\]\n]{0,40}\]\s*)*(?:(?:[a-z]+ ){0,3}(?:error|exception)(?: code)?\s*[:(]?\s*)?\(?([45]\d\d)(?=[\s:,.)\]}-]|$)/i.exec(
      text,
    ) ??
    /\bstatus(?:[ _]?code)?["']?\s*[:=]?\s*["']?([45]\d\d)\b/i.exec(text) ??
    /\bHTTP(?:\/\d(?:\.\d)?)?\s+([45]\d\d)\b/i.exec(text) ??
    /"code"\s*:\s*"?([45]\d\d)\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}
