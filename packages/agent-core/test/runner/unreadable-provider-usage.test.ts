/**
 * A provider's usage that cannot be read at all (a revoked proxy, a getter
 * that throws) is untrusted like one with missing counts: it should count
 * as nothing, and the response stands.
 */
import { type AssistantMessage, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";

function unreadable(kind: "revoked" | "getter"): unknown {
  if (kind === "getter")
    return Object.defineProperty({}, "output", {
      get: () => {
        throw new Error("the provider's usage getter failed");
      },
      enumerable: true,
    });
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function answerWithUsage(usage: unknown): StreamFn {
  return (() => {
    const stream = createAssistantMessageEventStream();
    const message = {
      role: "assistant",
      content: [{ type: "text", text: "the answer" }],
      api: "scripted",
      provider: "scripted",
      model: "scripted-model",
      usage,
      stopReason: "stop",
      timestamp: 1,
    } as unknown as AssistantMessage;
    queueMicrotask(() => {
      stream.push({ type: "start", partial: { ...message, content: [] } });
      stream.push({ type: "done", reason: "stop", message });
    });
    return stream;
  }) as unknown as StreamFn;
}

describe("a provider's usage that cannot be read", () => {
  it.each(["revoked", "getter"] as const)(
    "(%s) counts as nothing: the answer stands and the turn completes",
    async (kind) => {
      const turn = await runCheckedTurn({ input: { llm: { streamFn: answerWithUsage(unreadable(kind)) } } });
      expect(turn.outcome).toMatchObject({ kind: "completed" });
      expect(turn.transcript.at(-1)).toMatchObject({
        role: "assistant",
        content: [{ type: "text", text: "the answer" }],
      });
      expect(turn.outcome.usage?.total.output).toBe(0);
    },
  );
});
