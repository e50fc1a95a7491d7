import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
} from "@mariozechner/pi-ai";
import { assistantMessage, createScriptedModel, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const message = assistantMessage("hi") as AssistantMessage;
const start: AssistantMessageEvent = { type: "start", partial: message };
const delta: AssistantMessageEvent = { type: "text_delta", contentIndex: 0, delta: "hi", partial: message };
const done: AssistantMessageEvent = { type: "done", reason: "stop", message };

describe("the call stack's streams, read by pull", () => {
  it("result() without a reader reads on by itself; a later reader still gets every event, in order", async () => {
    const provider = createAssistantMessageEventStream();
    const stream = await withLlmRetry(() => provider, {}, {})(model, userContext(), {});
    provider.push(start);
    provider.push(delta);
    provider.push(done);
    expect(await stream.result()).toBe(message);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(["start", "text_delta", "done"]);
  });

  it("a read waiting on a pi-ai stream whose provider ignores its signal returns the timeout when the watchdog fires", async () => {
    // The premise of letting go of such a provider: pi-ai's end() wakes a read that waits on its stream.
    const clock = createVirtualClock();
    const provider = createAssistantMessageEventStream();
    const stream = await withStreamTimeouts(() => provider, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 100,
      clock,
      env: {},
    })(model, userContext(), {});
    const iterator = stream[Symbol.asyncIterator]();
    provider.push(start);
    expect((await iterator.next()).value?.type).toBe("start");
    const waiting = iterator.next();
    await clock.advance(100);
    const next = await waiting;
    expect(next.value?.type).toBe("error");
    expect(next.value?.type === "error" && next.value.error.errorMessage).toMatch(/idle timeout/);
    expect((await iterator.next()).done).toBe(true);
    provider.push(delta);
    expect((await iterator.next()).done).toBe(true);
  });
});
