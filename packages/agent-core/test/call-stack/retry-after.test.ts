/**
 * Retry-After as stream functions report it through `onResponse`: the retry
 * layer chains its own observer behind the host's and uses the failed
 * attempt's last response (status and headers) to decide the wait.
 */
import type { ProviderResponse } from "@mariozechner/pi-ai";
import { describe, expect, it, vi } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import type { LlmRetryNotification, LlmRetryOptions } from "../../src/call-stack/llm-config.js";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { parseRetryAfterText, retryAfterFromHeaders } from "../../src/call-stack/retry-after.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import {
  collectStream,
  createScriptedModel,
  createVirtualClock,
  errorAfter,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const context = userContext();
/**
 * A stream function that reports `responses[i]` through `onResponse` before
 * playing call `i` of `script`, as custom providers and gateways do for
 * error responses too.
 */
function reportingStreamFn(responses: ReadonlyArray<ProviderResponse | undefined>, script: ScriptEntry[]) {
  const inner = createScriptedModel(script);
  let call = 0;
  const streamFn: StreamFn = async (m, c, options) => {
    const response = responses[call++];
    if (response) await options?.onResponse?.(response, m);
    return inner.streamFn(m, c, options);
  };
  return { inner, streamFn };
}

function retryingOver(
  streamFn: StreamFn,
  options: LlmRetryOptions = {},
  clock = createVirtualClock({ autoAdvance: true }),
) {
  const notifications: LlmRetryNotification[] = [];
  const retrying = withLlmRetry(
    streamFn,
    { ...options, observer: (n) => void notifications.push(n) },
    { clock, random: () => 0.5 },
  );
  return { retrying, notifications, clock };
}

const tooMany = (headers: Record<string, string>): ProviderResponse => ({ status: 429, headers });

describe("Retry-After reported through onResponse", () => {
  it("a 429 reported with retry-after: 3 waits 3 s instead of the backoff, and the host's observer still sees it", async () => {
    const { inner, streamFn } = reportingStreamFn(
      [tooMany({ "retry-after": "3" }), { status: 200, headers: {} }],
      [
        // A gateway's bare text: without the reported status it would be an unknown, unretried failure.
        errorAfter(1, "Provider returned error"),
        "ok",
      ],
    );
    const { retrying, clock, notifications } = retryingOver(streamFn);
    const hostObserver = vi.fn();
    const result = await collectStream(retrying(model, context, { onResponse: hostObserver }));
    expect(result.text).toBe("ok");
    expect(inner.requests).toHaveLength(2);
    expect(clock.scheduledDelays()).toEqual([3000]);
    expect(notifications[0]).toMatchObject({
      type: "waiting",
      delayMs: 3000,
      error: { code: "rate_limited", status: 429, retryAfterMs: 3000 },
    });
    expect(hostObserver.mock.calls).toEqual([
      [{ status: 429, headers: { "retry-after": "3" } }, model],
      [{ status: 200, headers: {} }, model],
    ]);
  });

  it("a retry-after beyond the per-attempt cap waits only the cap", async () => {
    const { streamFn } = reportingStreamFn(
      [tooMany({ "retry-after": "100" })],
      [errorAfter(1, "429 Too Many Requests"), "ok"],
    );
    const { retrying, clock } = retryingOver(streamFn);
    expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([30_000]);
  });

  it("retry-after as an HTTP date waits until that date", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date("2026-12-01T12:00:00Z"));
      const { streamFn } = reportingStreamFn(
        [tooMany({ "Retry-After": "Tue, 01 Dec 2026 12:00:04 GMT" })],
        [errorAfter(1, "429 Too Many Requests"), "ok"],
      );
      const { retrying, clock } = retryingOver(streamFn);
      expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
      expect(clock.scheduledDelays()).toEqual([4000]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("retry-after-ms wins over retry-after and over a hint in the text", async () => {
    const { streamFn } = reportingStreamFn(
      [{ status: 503, headers: { "retry-after-ms": "1500", "retry-after": "9" } }],
      [errorAfter(1, "503 busy. Please try again in 7s."), "ok"],
    );
    const { retrying, clock } = retryingOver(streamFn);
    expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([1500]);
  });

  it("a Retry-After that would break the 120 s budget ends the retries: exhausted, reason max_elapsed", async () => {
    const limited = tooMany({ "retry-after": "70" });
    const { inner, streamFn } = reportingStreamFn(
      [limited, limited, limited],
      [errorAfter(1, "429 slow down"), errorAfter(1, "429 slow down"), "never"],
    );
    const { retrying, clock, notifications } = retryingOver(streamFn, { maxDelayMs: 100_000 });
    const result = await collectStream(retrying(model, context, {}));
    // 70 s fits the budget; a second 70 s wait would end at 140 s.
    expect(clock.scheduledDelays()).toEqual([70_000]);
    expect(inner.requests).toHaveLength(2);
    expect(result.final).toMatchObject({ stopReason: "error", errorMessage: "429 slow down" });
    expect(classifyError(result.final)).toMatchObject({ code: "rate_limited", retryAfterMs: 70_000 });
    expect(notifications.at(-1)).toMatchObject({ type: "exhausted", attempts: 2, reason: "max_elapsed" });
  });

  it.each([
    ["408 Request Timeout", 408],
    ["Request timed out", 504],
  ])(
    "a timeout the provider reports (%s, status %i) waits the response's Retry-After, as every other retryable status does",
    async (text, status) => {
      const { inner, streamFn } = reportingStreamFn(
        [
          { status, headers: { "retry-after-ms": "0" } },
          { status, headers: { "retry-after": "4" } },
        ],
        [errorAfter(1, text), errorAfter(1, text), "ok"],
      );
      const { retrying, clock, notifications } = retryingOver(streamFn);
      expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
      expect(inner.requests).toHaveLength(3);
      // The backoff would have been 750 ms and 1500 ms (jitter 0.5).
      expect(clock.scheduledDelays()).toEqual([0, 4000]);
      expect(notifications.slice(0, 2)).toMatchObject([
        { type: "waiting", delayMs: 0, error: { code: "timeout", retryable: true, retryAfterMs: 0 } },
        { type: "waiting", delayMs: 4000, error: { code: "timeout", retryable: true, retryAfterMs: 4000 } },
      ]);
    },
  );

  it("the headers of a 2xx response are no wait: a later failure of that attempt backs off by policy", async () => {
    const { streamFn } = reportingStreamFn(
      [{ status: 200, headers: { "retry-after": "9" } }],
      [errorAfter(1, "Connection error."), "ok"],
    );
    const { retrying, clock } = retryingOver(streamFn);
    expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([750]);
  });

  it("each attempt remembers only its own response", async () => {
    const { streamFn } = reportingStreamFn(
      [tooMany({ "retry-after": "5" }), undefined],
      [errorAfter(1, "429 first"), errorAfter(1, "503 second, no response reported"), "ok"],
    );
    const { retrying, clock } = retryingOver(streamFn);
    expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([5000, 1500]);
  });
});

describe("Retry-After readers", () => {
  it("read headers in any case, seconds, milliseconds and dates, never negative", () => {
    const now = () => Date.parse("2026-12-01T12:00:00Z");
    expect(retryAfterFromHeaders({ "Retry-After": "2.5" }, now)).toBe(2500);
    expect(retryAfterFromHeaders(new Headers({ "retry-after-ms": "40" }), now)).toBe(40);
    expect(retryAfterFromHeaders({ "retry-after": "Tue, 01 Dec 2026 11:59:00 GMT" }, now)).toBe(0);
    expect(retryAfterFromHeaders({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(retryAfterFromHeaders(undefined, now)).toBeUndefined();
  });

  it("read the hints providers put in the text", () => {
    expect(parseRetryAfterText("Please try again in 1.2s.")).toBe(1200);
    expect(parseRetryAfterText("retry after 20 seconds")).toBe(20_000);
    expect(parseRetryAfterText("Please try again in 250ms")).toBe(250);
    expect(parseRetryAfterText('"retryDelay": "58s"')).toBe(58_000);
    expect(parseRetryAfterText("try again in 8 hours 30 minutes")).toBeUndefined();
  });
});
