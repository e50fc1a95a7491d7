/**
 * Context overflow recovery through a real `PiTurnRunner`: a request that
 * fails with a context overflow before any output runs the before-LLM hooks
 * again with reason `overflow`, and is sent once more with what they
 * produced; a second overflow in the same turn fails it. Only the public API
 * and the testing entry are used.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { describe, expect, it } from "vitest";
import type { BeforeLlmCallEvent, BeforeLlmCallHook } from "../../src/index.js";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  assistantMessage,
  requestText,
  runScriptedTurn,
  userMessage,
  type ScriptEntry,
} from "../../src/testing/index.js";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";

/** A provider's overflow answer: no output, stopReason error, the provider's text. */
const overflow = (): ScriptEntry => assistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });

const longHistory = (): AgentMessage[] => [
  userMessage("an old question", { timestamp: 1 }),
  assistantMessage("a very long old answer", { timestamp: 2 }),
];

/** A compaction hook: on `overflow` it replaces the history by a summary; otherwise it changes nothing. */
function compactOnOverflow(seen: Array<Pick<BeforeLlmCallEvent, "reason" | "requestIndex">>): BeforeLlmCallHook {
  return (event) => {
    seen.push({ reason: event.reason, requestIndex: event.requestIndex });
    if (event.reason !== "overflow") return undefined;
    const summary = userMessage("Summary of the earlier conversation.", { timestamp: 3 });
    const latest = event.messages.at(-1)!;
    return { type: "replaceMessages", messages: [summary, latest], metadata: { compacted: true } };
  };
}

describe("context overflow recovery through PiTurnRunner", () => {
  it("an overflow before any output runs the hooks with reason overflow and resends once with the compacted history", async () => {
    const seen: Array<Pick<BeforeLlmCallEvent, "reason" | "requestIndex">> = [];
    const turn = await runScriptedTurn({
      script: [overflow(), "Answer from the compacted context."],
      input: {
        history: longHistory(),
        userMessage: { text: "new question" },
        hooks: { beforeLlmCallHook: compactOnOverflow(seen) },
      },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    assertRuntimeEventSequence(turn.events);
    assertToolCallsAnswered(turn.transcript);
    expect(seen).toEqual([
      { reason: "request", requestIndex: 0 },
      { reason: "overflow", requestIndex: 0 },
    ]);
    expect(turn.requests).toHaveLength(2);
    const sent = (index: number) => JSON.stringify(turn.requests[index]!.context.messages);
    expect(sent(0)).toContain("a very long old answer");
    expect(sent(1)).not.toContain("a very long old answer");
    expect(requestText(turn.requests[1]!)).toBe("Summary of the earlier conversation.\nnew question");

    // The host stored the compaction, and the overflowed attempt never reached the history or the stream.
    expect(turn.historyChanges.some((change) => change.reason === "replaceMessages")).toBe(true);
    expect(JSON.stringify(turn.transcript)).not.toContain(OVERFLOW);
    expect(turn.writer.text()).toBe("Answer from the compacted context.");
    expect(
      turn.events.filter((event) => event.type === "stream.resp" && event.payload.chunk.kind === "finish"),
    ).toHaveLength(1);
  });

  it("a second overflow in the same turn fails it with context_overflow: one resend, never a third request", async () => {
    const seen: Array<Pick<BeforeLlmCallEvent, "reason" | "requestIndex">> = [];
    const turn = await runScriptedTurn({
      script: [overflow(), overflow(), "never sent"],
      input: {
        history: longHistory(),
        userMessage: { text: "new question" },
        hooks: { beforeLlmCallHook: compactOnOverflow(seen) },
      },
    });

    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow", message: OVERFLOW } });
    assertRuntimeEventSequence(turn.events);
    expect(turn.requests).toHaveLength(2);
    expect(seen.map((event) => event.reason)).toEqual(["request", "overflow"]);
    expect(turn.events.at(-1)).toMatchObject({
      type: "session.status",
      payload: { status: "failed", error: { code: "context_overflow" } },
    });
  });

  it("without a before-LLM hook there is nothing to recover with: the overflow fails the turn after one request", async () => {
    const turn = await runScriptedTurn({
      script: [overflow(), "never sent"],
      input: { history: longHistory(), userMessage: { text: "new question" } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
    expect(turn.requests).toHaveLength(1);
  });

  it("a hook that changes nothing on overflow gets no resend: the overflow surfaces", async () => {
    const reasons: string[] = [];
    const turn = await runScriptedTurn({
      script: [overflow(), "never sent"],
      input: {
        userMessage: { text: "new question" },
        hooks: { beforeLlmCallHook: (event) => void reasons.push(event.reason) },
      },
    });
    expect(reasons).toEqual(["request", "overflow"]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
  });

  it("a 429 'Request too large … (TPM)' is a rate limit, not an overflow: no hook runs with reason overflow", async () => {
    const reasons: string[] = [];
    const tpm =
      "429 Request too large for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Requested 61337. The input or output tokens must be reduced in order to run successfully.";
    const turn = await runScriptedTurn({
      script: [assistantMessage("", { stopReason: "error", errorMessage: tpm }), "never sent"],
      input: {
        userMessage: { text: "new question" },
        hooks: { beforeLlmCallHook: (event) => void reasons.push(event.reason) },
      },
    });
    expect(reasons).toEqual(["request"]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "rate_limited" } });
  });
});
