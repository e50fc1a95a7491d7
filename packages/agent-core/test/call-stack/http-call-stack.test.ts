/**
 * The whole model call stack against a real HTTP server: pi-ai's own
 * openai-completions provider (and the OpenAI SDK under it) talks to a fake
 * chat-completions server on 127.0.0.1. Backoff runs on a virtual clock;
 * the stream watchdogs use real, short timeouts.
 */
import { describe, expect, it, vi } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import type { OverflowRecover } from "../../src/call-stack/overflow-recovery.js";
import { reply, textChunks, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { callStack, serve } from "../support/http-call-stack.js";
import { createVirtualClock } from "@turnkit/agent-loop/testing";
import { userContext } from "../support/user-context.js";

function retryCounts(server: FakeOpenAIServer) {
  return server.requests.map((request) => request.headers["x-stainless-retry-count"]);
}

describe("transport retry over HTTP", () => {
  it("429 then success: one visible answer, waiting then recovered, delay from the policy", async () => {
    const server = await serve(
      reply.status(429, "Rate limit reached for requests", { "retry-after": "7" }),
      reply.text(["Hello", ", ", "world"]),
    );
    const { run, clock, notifications } = callStack(server);
    const result = await run();
    expect(result.text).toBe("Hello, world");
    expect(result.types.filter((type) => type === "start")).toHaveLength(1);
    expect(result.types.filter((type) => type === "text_delta")).toHaveLength(3);
    expect(result.final).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "Hello, world" }] });
    // pi-ai 0.73.1 drops the headers of a failed response, so the header's 7 s
    // is not visible: the policy's first delay (1 s, equal jitter at 0.5) applies.
    expect(clock.scheduledDelays()).toEqual([750]);
    expect(notifications).toEqual([
      {
        type: "waiting",
        label: "main",
        attempt: 1,
        delayMs: 750,
        error: expect.objectContaining({ code: "rate_limited", status: 429 }),
      },
      { type: "recovered", label: "main", attempt: 2 },
    ]);
    expect(server.requests).toHaveLength(2);
    expect(retryCounts(server)).toEqual(["0", "0"]);
  });

  it("pi-ai 0.73.1 reports only 2xx responses through onResponse, so a 429's Retry-After header is not seen and the policy delay applies", async () => {
    // If an upgrade starts reporting error responses, the host observer sees the 429
    // and the wait becomes the header's 7 s: this test then fails on purpose.
    const server = await serve(
      reply.status(429, "Rate limit reached for requests", { "retry-after": "7" }),
      reply.text("ok"),
    );
    const { run, clock } = callStack(server);
    const seen: number[] = [];
    const result = await run(userContext(), undefined, {
      onResponse: (response: { status: number }) => void seen.push(response.status),
    });
    expect(result.text).toBe("ok");
    expect(seen).toEqual([200]);
    expect(clock.scheduledDelays()).toEqual([750]);
  });

  it("honours a wait the provider states in the error text", async () => {
    const server = await serve(reply.status(429, "Rate limit reached. Please try again in 2.5s."), reply.text("ok"));
    const { run, clock } = callStack(server);
    expect((await run()).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([2500]);
  });

  it.each([500, 502, 503])("retries %i", async (status) => {
    const server = await serve(reply.status(status, "upstream trouble"), reply.text("recovered"));
    const { run, notifications } = callStack(server);
    const result = await run();
    expect(result.text).toBe("recovered");
    expect(server.requests).toHaveLength(2);
    expect(notifications.map((n) => n.type)).toEqual(["waiting", "recovered"]);
    expect(retryCounts(server)).toEqual(["0", "0"]);
  });

  it("retries a connection reset before the first byte", async () => {
    const server = await serve(reply.reset(), reply.text("after reset"));
    const { run, notifications } = callStack(server);
    expect((await run()).text).toBe("after reset");
    expect(notifications[0]).toMatchObject({ type: "waiting", error: { code: "network" } });
  });

  it.each([
    [400, "Invalid value for 'temperature'", "invalid_request"],
    [401, "Incorrect API key provided", "auth"],
    [403, "Project does not have access", "auth"],
  ])("never retries %i", async (status, message, code) => {
    const server = await serve(reply.status(status, message), reply.text("never sent"));
    const { run, notifications } = callStack(server);
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(result.final.stopReason).toBe("error");
    expect(classifyError(result.final)).toMatchObject({ code, status, retryable: false });
    expect(notifications).toEqual([]);
  });

  it("gives up after 5 retries with exhausted and the final error", async () => {
    const server = await serve(
      ...Array.from({ length: 6 }, (_, i) => reply.status(503, `overloaded ${i + 1}`)),
      reply.text("late"),
    );
    const { run, clock, notifications } = callStack(server);
    const result = await run();
    expect(server.requests).toHaveLength(6);
    expect(retryCounts(server)).toEqual(["0", "0", "0", "0", "0", "0"]);
    expect(clock.scheduledDelays()).toEqual([750, 1500, 3000, 6000, 12_000]);
    expect(result.final).toMatchObject({ stopReason: "error", errorMessage: "503 overloaded 6" });
    expect(notifications.at(-1)).toEqual({
      type: "exhausted",
      label: "main",
      attempts: 6,
      reason: "max_retries",
      error: expect.objectContaining({ code: "upstream", status: 503, message: "503 overloaded 6" }),
    });
  });

  it("stops before 120 s of virtual time", async () => {
    const server = await serve(
      ...Array.from({ length: 7 }, () => reply.status(429, "Rate limit. Please try again in 30s.")),
    );
    const { run, clock, notifications } = callStack(server);
    const result = await run();
    expect(clock.scheduledDelays()).toEqual([30_000, 30_000, 30_000, 30_000]);
    expect(clock.now()).toBe(120_000);
    expect(server.requests).toHaveLength(5);
    expect(classifyError(result.final).code).toBe("rate_limited");
    expect(notifications.at(-1)).toMatchObject({ type: "exhausted", attempts: 5, reason: "max_elapsed" });
  });

  it("a failure after the first text delta is final, with the classified code", async () => {
    // Role chunk, then "Hel", then the socket is destroyed.
    const server = await serve(reply.text(["Hel", "lo"], { resetAfter: 2 }), reply.text("never sent"));
    const { run, notifications } = callStack(server);
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(result.text).toBe("Hel");
    expect(result.final.stopReason).toBe("error");
    expect(classifyError(result.final)).toMatchObject({ code: "network" });
    expect(notifications).toEqual([]);
  });

  it("with llmRetry false a 503 is exactly one request (the SDK does not retry either)", async () => {
    const server = await serve(reply.status(503, "busy"), reply.status(503, "busy"), reply.text("never sent"));
    const { run } = callStack(server, { retry: false });
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(retryCounts(server)).toEqual(["0"]);
    expect(classifyError(result.final)).toMatchObject({ code: "upstream", status: 503 });
  });

  it.each([
    ["openai-responses", (baseUrl: string) => baseUrl],
    ["anthropic-messages", (baseUrl: string) => baseUrl.replace(/\/v1$/, "")],
  ] as const)(
    "through pi-ai's %s provider, a 429 or 503 is one request too: its SDK's own retries are off",
    async (api, base) => {
      for (const status of [429, 503]) {
        const server = await serve(
          reply.status(status, "busy"),
          reply.status(status, "busy"),
          reply.text("never sent"),
        );
        const { run } = callStack(server, { retry: false, model: { api, baseUrl: base(server.baseUrl) } });
        const result = await run();
        expect(server.requests, `${api} ${status}`).toHaveLength(1);
        expect(classifyError(result.final)).toMatchObject({ status, retryable: true });
      }
    },
  );

  it("an abort during a backoff ends at once as aborted", async () => {
    const server = await serve(reply.status(503, "busy"), reply.text("never sent"));
    const clock = createVirtualClock();
    const controller = new AbortController();
    const { run, notifications } = callStack(server, { clock });
    const pending = run(userContext(), controller.signal);
    await vi.waitFor(() => expect(clock.pendingCount()).toBe(1));
    controller.abort();
    const result = await pending;
    expect(result.final.stopReason).toBe("aborted");
    expect(classifyError(result.final)).toMatchObject({ aborted: true });
    expect(server.requests).toHaveLength(1);
    expect(notifications.map((n) => n.type)).toEqual(["waiting", "cancelled"]);
  });
});

describe("stream timeouts over HTTP", () => {
  it("a hang before the first byte times out, is retried and recovers", async () => {
    const server = await serve(reply.hang(), reply.text("second try"));
    const { run, notifications } = callStack(server, { firstEventTimeoutMs: 300 });
    const started = performance.now();
    const result = await run();
    expect(result.text).toBe("second try");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(2);
    expect(notifications[0]).toMatchObject({
      type: "waiting",
      error: { code: "timeout", message: expect.stringContaining("no first event within 300 ms") },
    });
    expect(notifications[1]).toMatchObject({ type: "recovered" });
  });

  it("a stall mid-stream after visible text ends with an idle timeout", async () => {
    const server = await serve(reply.text(["Hel", "lo"], { stallAfter: 2 }), reply.text("never sent"));
    const { run } = callStack(server, { streamIdleTimeoutMs: 300 });
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(result.text).toBe("Hel");
    expect(result.final.stopReason).toBe("error");
    expect(result.final.errorMessage).toMatch(/idle timeout/);
    expect(classifyError(result.final)).toMatchObject({ code: "timeout" });
  });

  it("a stall before any text is an idle timeout that is retried", async () => {
    const server = await serve(reply.text(["late"], { stallAfter: 1 }), reply.text("fresh"));
    const { run, notifications } = callStack(server, { streamIdleTimeoutMs: 300 });
    const result = await run();
    expect(result.text).toBe("fresh");
    expect(server.requests).toHaveLength(2);
    expect(notifications[0]).toMatchObject({ type: "waiting", error: { code: "timeout" } });
  });

  it("a pause between chunks shorter than the idle limit is not a timeout", async () => {
    const server = await serve(reply.text(["slow", " but", " steady"], { pauses: { 2: 150, 3: 150 } }));
    const { run, notifications } = callStack(server, { streamIdleTimeoutMs: 1_000 });
    const result = await run();
    expect(result.text).toBe("slow but steady");
    expect(notifications).toEqual([]);
  });

  it("a caller abort during a hang is aborted, never a timeout", async () => {
    const server = await serve(reply.hang(), reply.text("never sent"));
    const controller = new AbortController();
    const { run, notifications } = callStack(server, { firstEventTimeoutMs: 10_000 });
    const pending = run(userContext(), controller.signal);
    await server.waitForRequests(1);
    controller.abort();
    const result = await pending;
    expect(result.final.stopReason).toBe("aborted");
    expect(result.final.errorMessage).not.toMatch(/timed out/);
    expect(classifyError(result.final).aborted).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(notifications).toEqual([]);
  });
});

describe("context overflow recovery over HTTP", () => {
  const OVERFLOW = "Your input exceeds the context window of this model.";

  it("recovers once: the hook runs, one resend with the smaller context", async () => {
    const server = await serve(reply.status(400, OVERFLOW), reply.text("compacted answer"));
    const recover = vi.fn<OverflowRecover>(async () => userContext("compacted"));
    const { run, notifications } = callStack(server, { recover });
    const result = await run(userContext("a huge conversation"));
    expect(result.text).toBe("compacted answer");
    expect(recover).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[0].body.messages)).toContain("a huge conversation");
    expect(JSON.stringify(server.requests[1].body.messages)).toContain("compacted");
    expect(notifications).toEqual([]);
  });

  it("a second overflow surfaces", async () => {
    const server = await serve(
      reply.status(400, OVERFLOW),
      reply.status(413, "Request Entity Too Large"),
      reply.text("never"),
    );
    const recover = vi.fn<OverflowRecover>(async () => userContext("still too big"));
    const { run } = callStack(server, { recover });
    const result = await run();
    expect(recover).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(2);
    expect(result.final.stopReason).toBe("error");
    expect(classifyError(result.final)).toMatchObject({ code: "context_overflow", status: 413 });
  });
});

describe("request options over HTTP", () => {
  it("headers merge (per-call wins), the host cap clamps max tokens, the request timeout is sent", async () => {
    const server = await serve(reply.text("ok"));
    const { run } = callStack(server, {
      llm: {
        headers: { "x-turnkit-host": "host", "x-turnkit-both": "host" },
        maxTokens: 4_000,
        hostMaxOutputTokens: 1_000,
      },
    });
    await run(userContext(), undefined, { headers: { "x-turnkit-both": "call" } });
    const [request] = server.requests;
    expect(request.headers["x-turnkit-host"]).toBe("host");
    expect(request.headers["x-turnkit-both"]).toBe("call");
    expect(request.headers.authorization).toBe("Bearer sk-test-key");
    expect(request.body.max_completion_tokens).toBe(1_000);
    // The OpenAI SDK announces its timeout in seconds: 20 min.
    expect(request.headers["x-stainless-timeout"]).toBe("1200");
    expect(request.headers["x-stainless-retry-count"]).toBe("0");
  });

  it("max tokens reach the body when below the model's limit", async () => {
    const server = await serve(reply.text("ok"));
    const { run } = callStack(server, { llm: { maxTokens: 321 } });
    await run();
    expect(server.requests[0].body.max_completion_tokens).toBe(321);
    expect(textChunks("x")).toHaveLength(4);
  });
});
