import { describe, expect, it } from "vitest";
import {
  attachClassifiedError,
  classifyError,
  getAttachedClassifiedError,
  type ClassifiedError,
} from "../../src/call-stack/classify-error.js";
import { TurnkitConfigError, TurnkitError } from "../../src/errors.js";
import { LlmTimeoutError } from "../../src/call-stack/stream-errors.js";
import { assistantMessage } from "@turnkit/agent-loop/testing";

function failedMessage(errorMessage: string, stopReason: "error" | "aborted" = "error") {
  return { ...assistantMessage([], { timestamp: 0 }), stopReason, errorMessage };
}

/** Error text as pi-ai 0.73.1 reports it in `errorMessage` (the OpenAI SDK prefixes the status). */
const textCases: Array<[string, Partial<ClassifiedError>]> = [
  [
    "429 Rate limit reached for gpt-x. Please try again in 1.5s.",
    { code: "rate_limited", retryable: true, status: 429, retryAfterMs: 1500 },
  ],
  ["429 status code (no body)", { code: "rate_limited", retryable: true, status: 429 }],
  [
    "429 You exceeded your current quota, please check your plan and billing details.",
    { code: "quota", retryable: false, status: 429 },
  ],
  ["402 Payment Required", { code: "quota", retryable: false }],
  ["408 Request Timeout", { code: "timeout", retryable: true, status: 408 }],
  ["500 Internal server error", { code: "upstream", retryable: true, status: 500 }],
  ["502 Bad gateway", { code: "upstream", retryable: true, status: 502 }],
  ["503 status code (no body)", { code: "upstream", retryable: true, status: 503 }],
  ["504 Gateway timeout", { code: "upstream", retryable: true, status: 504 }],
  ["501 Not implemented", { code: "upstream", retryable: false, status: 501 }],
  [
    '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    { code: "upstream", retryable: true, status: 529 },
  ],
  ["Overloaded", { code: "upstream", retryable: true }],
  ["400 Invalid value for 'temperature'", { code: "invalid_request", retryable: false, status: 400 }],
  ["404 The model `nope` does not exist", { code: "invalid_request", retryable: false, status: 404 }],
  ["422 Unprocessable", { code: "invalid_request", retryable: false, status: 422 }],
  ["401 Incorrect API key provided: sk-...", { code: "auth", retryable: false, status: 401 }],
  ["403 Project does not have access to model", { code: "auth", retryable: false, status: 403 }],
  ["No API key for provider: openai", { code: "auth", retryable: false }],
  [
    "400 Your input exceeds the context window of this model.",
    { code: "context_overflow", retryable: false, status: 400 },
  ],
  ["prompt is too long: 213462 tokens > 200000 maximum", { code: "context_overflow", retryable: false }],
  ["413 Request Entity Too Large", { code: "context_overflow", retryable: false, status: 413 }],
  ['413 {"error":{"type":"request_too_large"}}', { code: "context_overflow", retryable: false, status: 413 }],
  [
    "400 The response was filtered due to the prompt triggering content_filter",
    { code: "content_filter", retryable: false },
  ],
  ["Provider finish_reason: content_filter", { code: "content_filter", retryable: false }],
  ["Connection error.", { code: "network", retryable: true }],
  ["terminated", { code: "network", retryable: true }],
  ["read ECONNRESET", { code: "network", retryable: true }],
  ["socket hang up", { code: "network", retryable: true }],
  ["Provider finish_reason: network_error", { code: "network", retryable: true }],
  ["Request timed out.", { code: "timeout", retryable: true }],
  ["LLM stream timed out: no first event within 50 ms (first_event timeout)", { code: "timeout", retryable: true }],
  ["503 Service busy, retry-after-ms: 2500", { code: "upstream", retryable: true, status: 503, retryAfterMs: 2500 }],
  ["529 overloaded. Please retry after 20 seconds", { code: "upstream", retryable: true, retryAfterMs: 20_000 }],
  ["Something odd happened", { code: "upstream", retryable: false }],
];

describe("classifyError", () => {
  it.each(textCases)("text %j", (text, expected) => {
    expect(classifyError(text)).toMatchObject(expected);
    expect(classifyError(failedMessage(text))).toMatchObject(expected);
  });

  it.each([
    ["aborted message", failedMessage("Request was aborted", "aborted")],
    ["AbortError", Object.assign(new Error("This operation was aborted"), { name: "AbortError" })],
    ["DOMException abort", new DOMException("The operation was aborted.", "AbortError")],
  ])("%s is an abort, never a failure", (_name, value) => {
    expect(classifyError(value)).toMatchObject({ aborted: true, retryable: false });
  });

  it("reads status and Retry-After from error objects (SDK errors, fetch failures)", () => {
    const sdkError = Object.assign(new Error("429 Too many requests"), {
      status: 429,
      headers: new Headers({ "retry-after": "7" }),
    });
    expect(classifyError(sdkError)).toMatchObject({
      code: "rate_limited",
      retryable: true,
      status: 429,
      retryAfterMs: 7000,
    });

    const msHeader = Object.assign(new Error("server busy"), { status: 503, headers: { "Retry-After-Ms": "1234" } });
    expect(classifyError(msHeader)).toMatchObject({ code: "upstream", retryable: true, retryAfterMs: 1234 });

    const date = new Date(Date.now() + 10_000).toUTCString();
    const dated = classifyError(
      Object.assign(new Error("slow down"), { status: 429, headers: { "retry-after": date } }),
    );
    expect(dated.retryAfterMs).toBeGreaterThan(8_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(10_000);

    const fetchFailure = new TypeError("fetch failed", {
      cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    });
    expect(classifyError(fetchFailure)).toMatchObject({ code: "network", retryable: true });

    const quota = Object.assign(new Error("You exceeded your current quota"), {
      status: 429,
      code: "insufficient_quota",
    });
    expect(classifyError(quota)).toMatchObject({ code: "quota", retryable: false });
  });

  it("knows Turnkit's own errors", () => {
    expect(classifyError(new LlmTimeoutError("idle", 300_000))).toMatchObject({ code: "timeout", retryable: true });
    expect(classifyError(new TurnkitError("hook", "hook failed"))).toMatchObject({ code: "hook", retryable: false });
    expect(classifyError(new TurnkitConfigError("invalid_host_cap", "bad cap"))).toMatchObject({ code: "internal" });
  });

  it("an unknown thrown value is internal, never throws", () => {
    expect(classifyError(new Error("bug"))).toMatchObject({ code: "internal", retryable: false, message: "bug" });
    expect(classifyError(undefined)).toMatchObject({ code: "internal", retryable: false });
    expect(classifyError({ weird: true })).toMatchObject({ code: "internal" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(classifyError(cyclic)).toMatchObject({ code: "internal" });
  });

  it("an attached classification wins, and is invisible to serialisation", () => {
    const message = failedMessage("LLM stream timed out: no event within 10 ms (idle timeout)");
    attachClassifiedError(message, { code: "timeout", message: "idle", retryable: true });
    expect(getAttachedClassifiedError(message)).toEqual({ code: "timeout", message: "idle", retryable: true });
    expect(classifyError(message).message).toBe("idle");
    expect(JSON.parse(JSON.stringify(message))).not.toHaveProperty("turnkitError");
    expect(Object.keys(message)).not.toContain("turnkitError");
  });
});
