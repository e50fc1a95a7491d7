import { createAssistantMessageEventStream, type AssistantMessageEvent } from "@mariozechner/pi-ai";
import { assistantMessage, createScriptedModel } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import type { LlmRetryNotification } from "../../src/call-stack/llm-config.js";
import { pipeEvents } from "../../src/call-stack/relay-stream.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const message = assistantMessage([{ type: "text", text: "a" }], { timestamp: 0 });
const start: AssistantMessageEvent = { type: "start", partial: message };
const delta: AssistantMessageEvent = { type: "text_delta", contentIndex: 0, delta: "a", partial: message };
const failure = (errorMessage: string): AssistantMessageEvent => ({
  type: "error",
  reason: "error",
  error: { ...message, content: [], stopReason: "error", errorMessage },
});

/** A provider whose one stream the test pushes into; it ignores its signal. */
function drivenProvider() {
  const stream = createAssistantMessageEventStream();
  const streamFn: StreamFn = () => stream;
  return { streamFn, stream };
}

/** Reads `out` synchronously (as the layer above does) and counts microtasks until its terminal event. */
function watch(out: ReturnType<StreamFn>) {
  const seen: string[] = [];
  pipeEvents(out as AsyncIterable<AssistantMessageEvent>, {
    event: (event) => seen.push(event.type === "error" ? `error:${event.error.stopReason}` : event.type),
    end: () => seen.push("end"),
    fail: () => seen.push("fail"),
  });
  const ticksUntilEnd = async () => {
    let ticks = 0;
    while (!seen.includes("end") && ticks < 200) {
      await Promise.resolve();
      ticks++;
    }
    return ticks;
  };
  return { seen, ticksUntilEnd };
}

// The microtasks an outcome of the transport retry takes to reach the layer above are part of
// what hosts observe (the order of events and aborts): these pin them.
describe("the transport retry's outcomes take the microtasks they always took", () => {
  it("a request sent after the caller's abort", async () => {
    const caller = new AbortController();
    caller.abort();
    const out = withLlmRetry(drivenProvider().streamFn, {}, {})(model, userContext(), { signal: caller.signal });
    const { seen, ticksUntilEnd } = watch(out);
    expect(await ticksUntilEnd()).toBe(1);
    expect(seen).toEqual(["error:aborted", "end"]);
  });

  it("a caller abort before the first visible output", async () => {
    const caller = new AbortController();
    const provider = drivenProvider();
    const out = withLlmRetry(provider.streamFn, {}, {})(model, userContext(), { signal: caller.signal });
    const { seen, ticksUntilEnd } = watch(out);
    provider.stream.push(start);
    await Promise.resolve();
    caller.abort();
    provider.stream.push({
      type: "error",
      reason: "aborted",
      error: { ...message, stopReason: "aborted", errorMessage: "aborted" },
    });
    expect(await ticksUntilEnd()).toBe(2);
    // The held-back start is dropped with the attempt.
    expect(seen).toEqual(["error:aborted", "end"]);
  });

  it("a failure that is not retried, before the first visible output", async () => {
    const provider = drivenProvider();
    const notices: LlmRetryNotification[] = [];
    const out = withLlmRetry(provider.streamFn, { observer: (notice) => void notices.push(notice) }, {})(
      model,
      userContext(),
      {},
    );
    const { seen, ticksUntilEnd } = watch(out);
    provider.stream.push(failure("400 Bad Request: invalid model"));
    const ticks = await ticksUntilEnd();
    expect(seen).toEqual(["error:error", "end"]);
    expect(ticks).toBe(8);
    expect(notices).toEqual([]);
  });

  it("a retryable failure with no retries left", async () => {
    const provider = drivenProvider();
    const notices: LlmRetryNotification[] = [];
    const out = withLlmRetry(provider.streamFn, { maxRetries: 0, observer: (notice) => void notices.push(notice) }, {})(
      model,
      userContext(),
      {},
    );
    const { seen, ticksUntilEnd } = watch(out);
    provider.stream.push(failure("503 Service Unavailable"));
    const ticks = await ticksUntilEnd();
    expect(seen).toEqual(["error:error", "end"]);
    expect(ticks).toBe(7);
    expect(notices.map((notice) => notice.type)).toEqual(["exhausted"]);
  });

  it("a caller abort right after the first visible output, from a provider that ignores it", async () => {
    const caller = new AbortController();
    const provider = drivenProvider();
    const out = withLlmRetry(provider.streamFn, {}, {})(model, userContext(), { signal: caller.signal });
    const seen: string[] = [];
    pipeEvents(out as AsyncIterable<AssistantMessageEvent>, {
      event: (event) => {
        seen.push(event.type === "error" ? `error:${event.error.stopReason}` : event.type);
        if (event.type === "text_delta") caller.abort();
      },
      end: () => seen.push("end"),
      fail: () => seen.push("fail"),
    });
    provider.stream.push(start);
    provider.stream.push(delta);
    let ticks = 0;
    while (!seen.includes("end") && ticks < 200) {
      await Promise.resolve();
      ticks++;
    }
    expect(seen).toEqual(["start", "text_delta", "error:aborted", "end"]);
    expect(ticks).toBe(2);
  });
});
