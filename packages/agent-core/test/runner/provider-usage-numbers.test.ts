/**
 * A provider's usage is untrusted: counts that are not finite, negative, or
 * missing altogether reach neither the events nor the history as they are.
 * Every event stays valid and JSON-safe (a host persists it), and a step's
 * `finish` usage is what the turn counted for it.
 */
import { type AssistantMessage, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { assistantMessage, response, text, toolCall } from "@turnkit/agent-loop/testing";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { validateRuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";

const brokenUsage = {
  input: Number.NaN,
  output: Number.POSITIVE_INFINITY,
  cacheRead: -3,
  cacheWrite: 2,
  totalTokens: Number.NaN,
  cost: { input: Number.NaN, output: 0.5, cacheRead: -1, cacheWrite: 0, total: Number.POSITIVE_INFINITY },
};
const countedUsage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 2,
  totalTokens: 0,
  cost: { input: 0, output: 0.5, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** Streams each of `finals` in turn as a whole response. */
function streamOf(finals: Record<string, unknown>[]): StreamFn {
  let call = 0;
  return (() => {
    const stream = createAssistantMessageEventStream();
    const message = finals[call++] as unknown as AssistantMessage;
    queueMicrotask(() => {
      stream.push({ type: "start", partial: { ...message, content: [] } });
      stream.push({ type: "done", reason: message.stopReason as "stop", message });
    });
    return stream;
  }) as unknown as StreamFn;
}

function expectPersistable(events: readonly unknown[]): void {
  for (const event of events) {
    const validation = validateRuntimeEvent(event);
    expect(validation.ok ? [] : validation.errors).toEqual([]);
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  }
}

describe("usage numbers a provider reports", () => {
  it("that are not finite or negative are counted as zero in the finish chunk, the history and the report", async () => {
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")], { usage: brokenUsage }), response("done", { usage: brokenUsage })],
      input: { tools: [tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expectPersistable(turn.events);
    const finishes = turn.writer
      .chunksOf("msg_1")
      .concat(turn.writer.chunksOf("msg_2"))
      .filter((c) => c.kind === "finish");
    expect(finishes).toHaveLength(2);
    for (const finish of finishes) {
      expect(finish.usage).toEqual(countedUsage);
      expect(finish.step?.usage).toEqual(countedUsage);
    }
    for (const message of turn.transcript)
      if (message.role === "assistant") expect(message.usage).toEqual(countedUsage);
  });

  it("on a response the loop cut off itself (the host's id allocator failed) are counted as zero too", async () => {
    const turn = await runCheckedTurn({
      script: [response([text("half an answer")], { usage: brokenUsage, chunkSize: 1 })],
      runnerOptions: {
        allocateMessageId: () => {
          throw new Error("id service down");
        },
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "internal" } });
    expectPersistable(turn.events);
    const assistant = turn.transcript.find((message) => message.role === "assistant");
    expect(assistant).toMatchObject({ usage: countedUsage });
  });

  it("that are missing are counted as zero, and the persisted message carries a usage", async () => {
    const { usage: _dropped, ...withoutUsage } = assistantMessage("no usage here");
    const turn = await runCheckedTurn({ input: { llm: { streamFn: streamOf([withoutUsage]) } } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expectPersistable(turn.events);
    const assistant = turn.transcript.find((message) => message.role === "assistant");
    expect(assistant).toMatchObject({ usage: { input: 0, output: 0, totalTokens: 0, cost: { total: 0 } } });
  });
});
