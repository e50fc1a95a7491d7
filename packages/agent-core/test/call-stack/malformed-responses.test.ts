/**
 * A stream function whose final message is malformed (a block without its
 * text, a tool call without an id, a block type pi-ai does not have, a
 * message that is no assistant message), or that streams a malformed event
 * before it (no object, no type, a delta that is no string, a finished tool
 * call without an id), fails the request as the model's fault (`upstream`,
 * not retried), naming the field; nothing malformed is persisted or
 * reaches the host's events, so the next turn accepts the history the first
 * one left.
 */
import { type AssistantMessage, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { assistantMessage, usageOf } from "@turnkit/agent-loop/testing";
import { ErrorCode, validateRuntimeEvent } from "@turnkit/protocol";
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

/** A stream function whose first response streams `start`, `bad`, then a well-formed final message; later ones answer "fine". */
function badEventFirst(bad: unknown): StreamFn & { calls: number } {
  const streamFn = (() => {
    const first = streamFn.calls++ === 0;
    const message = assistantMessage(first ? "kept back" : "fine") as AssistantMessage;
    // A plain async iterable as well as pi-ai's stream: the runner reads both.
    return (async function* () {
      yield { type: "start", partial: { ...message, content: [] } };
      if (first) yield bad;
      yield { type: "done", reason: "stop", message };
    })();
  }) as unknown as StreamFn & { calls: number };
  streamFn.calls = 0;
  return streamFn;
}

describe("a malformed event in the middle of a model's stream", () => {
  const text = { type: "text", text: "x" };
  for (const [name, bad, expected] of [
    ["no event at all (null)", null, "a streamed event must be an object, got null"],
    ["a string", "hello", 'a streamed event must be an object, got "hello"'],
    ["an event without a type", { partial: base }, "a streamed event's type must be a string, got undefined"],
    [
      "a text delta that is a number",
      { type: "text_delta", contentIndex: 0, delta: 5, partial: { ...base, content: [text] } },
      "a text_delta event's delta must be a string, got 5",
    ],
    [
      "a finished tool call that is null",
      { type: "toolcall_end", contentIndex: 0, toolCall: null, partial: base },
      "a toolcall_end event's toolCall must be an object, got null",
    ],
    [
      "a finished tool call without an id",
      {
        type: "toolcall_end",
        contentIndex: 0,
        toolCall: { type: "toolCall", name: "t", arguments: {} },
        partial: base,
      },
      "a toolcall_end event's toolCall.id must be a string, got undefined",
    ],
  ] as const) {
    for (const retry of [true, false]) {
      it(`${name} (retry ${retry ? "on" : "off"}): the turn fails upstream naming it, not retried; every event is valid`, async () => {
        const streamFn = badEventFirst(bad);
        const first = await runCheckedTurn({
          script: [],
          input: { llm: { streamFn }, ...(retry ? { llmRetry: { baseDelayMs: 1 } } : { llmRetry: false }) },
        });
        expect(first.outcome).toMatchObject({
          kind: "failed",
          error: { code: ErrorCode.Upstream, message: `The model's response is malformed: ${expected}` },
        });
        expect(streamFn.calls).toBe(1);
        for (const event of first.events) expect(validateRuntimeEvent(event)).toMatchObject({ ok: true });
        expect(first.transcript.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: [] });
        const second = await runCheckedTurn({ script: ["next answer"], input: { history: first.transcript } });
        expect(second.outcome.kind).toBe("completed");
      });
    }
  }

  it("an event of a type pi-ai does not have is skipped: the response completes", async () => {
    const streamFn = badEventFirst({ type: "server_heartbeat", partial: base });
    const turn = await runCheckedTurn({ script: [], input: { llm: { streamFn } } });
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.transcript.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "kept back" }] });
  });
});
