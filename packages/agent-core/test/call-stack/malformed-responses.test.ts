/**
 * A stream function whose final message is malformed (a block without its
 * text, a tool call without an id, a block type pi-ai does not have, a
 * message that is no assistant message) fails the request as the model's
 * fault (`upstream`, not retried), naming the field; nothing malformed is
 * persisted, so the next turn accepts the history the first one left.
 */
import { type AssistantMessage, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { assistantMessage, usageOf } from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { getAttachedClassifiedError, withLlmRetry } from "../../src/index.js";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";

/** A stream function whose first response ends with `final` (as `done`, or as `error` when its stopReason is "error"); later ones answer "fine". */
function firstResponse(final: Record<string, unknown>): StreamFn & { calls: number } {
  const streamFn = (() => {
    const stream = createAssistantMessageEventStream();
    const message = (streamFn.calls++ === 0 ? final : assistantMessage("fine")) as AssistantMessage;
    queueMicrotask(() => {
      stream.push({ type: "start", partial: { ...message, content: [] } });
      if (message.stopReason === "error") stream.push({ type: "error", reason: "error", error: message });
      else stream.push({ type: "done", reason: "stop", message });
    });
    return stream;
  }) as unknown as StreamFn & { calls: number };
  streamFn.calls = 0;
  return streamFn;
}

const base = assistantMessage("x");

describe("a malformed final message from the model", () => {
  for (const [name, final, expected] of [
    [
      "a text block without text",
      { ...base, content: [{ type: "text" }] },
      "content[0].text must be a string, got undefined",
    ],
    [
      "a tool call without an id",
      { ...base, content: [{ type: "toolCall", name: "t", arguments: {} }], stopReason: "toolUse" },
      "content[0].id must be a string, got undefined",
    ],
    [
      "a block type pi-ai does not have",
      { ...base, content: [{ type: "audio", data: "x" }] },
      'content[0].type must be one of "text", "thinking", "toolCall", got "audio"',
    ],
    [
      "a message that is no assistant message",
      { ...base, role: "user" },
      'the message must be an assistant message, got role "user"',
    ],
  ] as const) {
    for (const retry of [true, false]) {
      it(`${name} (retry ${retry ? "on" : "off"}): the turn fails upstream naming the field; the next turn takes its history`, async () => {
        const streamFn = firstResponse(final);
        const first = await runCheckedTurn({
          script: [],
          input: { llm: { streamFn }, ...(retry ? { llmRetry: { baseDelayMs: 1 } } : {}) },
        });
        expect(first.outcome).toMatchObject({
          kind: "failed",
          error: { code: ErrorCode.Upstream, message: `The model's response is malformed: ${expected}` },
        });
        // Not retried: the same model would answer the same way.
        expect(streamFn.calls).toBe(1);
        expect(first.transcript.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: [] });
        const second = await runCheckedTurn({ script: ["next answer"], input: { history: first.transcript } });
        expect(second.outcome.kind).toBe("completed");
        expect(second.writer.text()).toBe("next answer");
      });
    }
  }

  it("keeps a failed response's own error text and its usage, and classifies it as the model's, not retryable", async () => {
    const final = {
      ...base,
      content: [{ type: "text", text: 1 }],
      stopReason: "error",
      errorMessage: "overloaded",
      usage: usageOf(12, 3),
    };
    const stream = await withLlmRetry(firstResponse(final), { maxRetries: 2, baseDelayMs: 1 })(
      { ...base, api: "test", provider: "test", id: "m" } as never,
      { messages: [] },
      {},
    );
    const message = await stream.result();
    expect(message).toMatchObject({
      stopReason: "error",
      content: [],
      errorMessage:
        "The model's response is malformed: content[0].text must be a string, got 1 (its error: overloaded)",
      usage: { input: 12, output: 3 },
    });
    expect(getAttachedClassifiedError(message)).toMatchObject({ code: ErrorCode.Upstream, retryable: false });
  });
});
