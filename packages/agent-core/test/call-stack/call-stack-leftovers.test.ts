/**
 * Provider quota codes on a 5xx, the release of a discarded attempt's
 * stream, and the environment variables named by timeout messages: each
 * through the call stack as the runner assembles it.
 */
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { collectStream, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { createFailureMessage, type StreamFn } from "../../src/call-stack/stream-fn.js";
import { LlmTimeoutError } from "../../src/call-stack/stream-errors.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { reply } from "../support/fake-openai-server.js";
import { callStack, serve } from "../support/http-call-stack.js";
import { userContext } from "../support/user-context.js";
import { fakeModel } from "../support/fake-openai-server.js";

describe("a 5xx carrying a provider's quota code", () => {
  it("a 500 with MiniMax's plan exhaustion body (its Anthropic-compatible endpoint) is quota: one request, no retry", async () => {
    const server = await serve(
      { type: "status", status: 500, body: { status_code: 2056, status_msg: "plan exhausted" } },
      reply.text("never sent"),
    );
    // The Anthropic SDK keeps the body in the error text ("500 {...}"); the OpenAI SDK drops a body without `error`.
    const { run, clock, notifications } = callStack(server, {
      model: { api: "anthropic-messages", provider: "minimax" },
    });
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(clock.scheduledDelays()).toEqual([]);
    expect(classifyError(result.final)).toMatchObject({ code: "quota", status: 500, retryable: false });
    expect(notifications).toEqual([]);
  });

  it("the quota code alone decides, whatever the message says", () => {
    expect(classifyError('500 {"status_code":1008,"status_msg":"insufficient balance"}')).toMatchObject({
      code: "quota",
      retryable: false,
    });
    expect(classifyError('503 {"base_resp":{"status_code":2056,"status_msg":"usage limit exceeded"}}')).toMatchObject({
      code: "quota",
      retryable: false,
    });
    // Other codes on a 5xx stay a retryable server error.
    expect(classifyError('500 {"status_code":1000,"status_msg":"unknown error"}')).toMatchObject({
      code: "upstream",
      retryable: true,
    });
  });

  it("a 503 after a 429 is retried like any 5xx, within the one budget (maxRetries counts both)", async () => {
    const server = await serve(
      reply.status(429, "Rate limit reached"),
      reply.status(503, "Service Unavailable"),
      reply.status(503, "Service Unavailable"),
      reply.text("third retry"),
    );
    const { run, notifications } = callStack(server, { retry: { maxRetries: 3 } });
    expect((await run()).text).toBe("third retry");
    expect(server.requests).toHaveLength(4);
    expect(notifications.map((n) => n.type)).toEqual(["waiting", "waiting", "waiting", "recovered"]);
  });
});

/** A provider stream that yields `events` and records when its iterator is released. */
function recordingProvider(scripts: AssistantMessageEvent[][], log: string[]): StreamFn {
  let call = 0;
  return () => {
    const index = ++call;
    const events = scripts[index - 1]!;
    log.push(`request ${index}`);
    let at = 0;
    const iterator: AsyncIterableIterator<AssistantMessageEvent> = {
      next: async () => (at < events.length ? { value: events[at++]!, done: false } : { value: undefined, done: true }),
      return: async () => {
        log.push(`released ${index}`);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator as never;
  };
}

describe("a discarded attempt's stream", () => {
  it("is released with return() before the next request is sent (through the timeouts layer, as the runner stacks it)", async () => {
    const model = fakeModel("http://127.0.0.1:9");
    const failure = createFailureMessage(model, "error", "503 Service Unavailable");
    const log: string[] = [];
    const done = { ...createFailureMessage(model, "error", ""), stopReason: "stop" as const, errorMessage: undefined };
    const provider = recordingProvider(
      [[{ type: "error", reason: "error", error: failure }], [{ type: "done", reason: "stop", message: done }]],
      log,
    );
    const clock = createVirtualClock({ autoAdvance: true });
    const streamFn = withLlmRetry(withStreamTimeouts(provider, { clock, env: {} }), {}, { clock, random: () => 0 });
    const result = await collectStream(streamFn(model, userContext(), {}));
    expect(result.final.stopReason).toBe("stop");
    expect(log.slice(0, 3)).toEqual(["request 1", "released 1", "request 2"]);
  });
});

describe("timeout messages", () => {
  it("name the environment variable that raises the bound, besides the option", () => {
    expect(new LlmTimeoutError("first_event", 120_000).message).toContain(
      "llm.firstEventTimeoutMs or TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS",
    );
    expect(new LlmTimeoutError("idle", 300_000).message).toContain(
      "llm.streamIdleTimeoutMs or TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS",
    );
  });
});
