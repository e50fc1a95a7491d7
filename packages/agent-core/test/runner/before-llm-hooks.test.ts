import { describe, expect, it } from "vitest";
import { assistantMessage, response, toolCall, userMessage } from "@turnkit/agent-loop/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import type { BeforeLlmCallEvent, BeforeLlmCallHook } from "../../src/pi-turn-runner/turn-hooks.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText, requestRoles, terminalStatus, userTexts } from "../support/turn-queries.js";

const history = (): AgentMessage[] => [
  userMessage("old question", { timestamp: 1 }),
  assistantMessage("old answer", { timestamp: 2 }),
];

describe("beforeLlmCallHook", () => {
  it("continue (or undefined) changes nothing; hooks run in order and see the request's messages", async () => {
    const seen: { index: number; roles: string[]; reason: string }[] = [];
    const hook = (event: BeforeLlmCallEvent) => {
      seen.push({
        index: event.requestIndex,
        roles: event.messages.map((message) => message.role),
        reason: event.reason,
      });
      return { type: "continue" as const };
    };
    const turn = await runCheckedTurn({
      script: ["answer"],
      input: { hooks: { beforeLlmCallHook: [hook, () => undefined] } },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(seen).toEqual([{ index: 0, roles: ["user"], reason: "request" }]);
    expect(userTexts(turn.requests[0]!)).toEqual(["hello"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(turn.writer.statuses()).toEqual(["running", "completed"]);
    expect(turn.writer.text()).toBe("answer");
  });

  it("skip: the provider is not called and the turn ends without an answer in history", async () => {
    const turn = await runCheckedTurn({
      script: ["never sent"],
      input: { hooks: { beforeLlmCallHook: () => ({ type: "skip" }) } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(0);
    expect(turn.model.remaining()).toBe(1);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user"]);
    expect(turn.writer.text()).toBe("");
  });

  it("respond: the provider is not called; the synthetic answer is streamed and persisted", async () => {
    const turn = await runCheckedTurn({
      script: ["never sent"],
      input: { hooks: { beforeLlmCallHook: () => ({ type: "respond", text: "Answered from cache." }) } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(0);
    expect(turn.writer.text("msg_1")).toBe("Answered from cache.");
    expect(turn.writer.chunksOf("msg_1").at(-1)).toMatchObject({
      kind: "finish",
      reason: "stop",
      usage: { totalTokens: 0 },
    });
    const answer = turn.delivered[1]!;
    expect(answer).toMatchObject({ role: "assistant", stopReason: "stop", usage: { totalTokens: 0 } });
    expect(messageText(answer)).toBe("Answered from cache.");
  });

  it("replaceRequestMessages: this request only sends the replacement; history and later requests are unchanged", async () => {
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")]), "done"],
      input: {
        history: history(),
        tools: [tool],
        hooks: {
          beforeLlmCallHook: (event) =>
            event.requestIndex === 0
              ? { type: "replaceRequestMessages", messages: [userMessage("only this", { timestamp: 3 })] }
              : undefined,
        },
      },
    });
    expect(userTexts(turn.requests[0]!)).toEqual(["only this"]);
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "assistant", "user", "assistant", "toolResult"]);
    expect(userTexts(turn.requests[1]!)).toEqual(["old question", "hello"]);
    expect(turn.historyChanges.every((change) => change.reason === "messageDelta")).toBe(true);
    expect(turn.writer.ofType("message.persisted").every((event) => event.payload.reason === "messageDelta")).toBe(
      true,
    );
    expect(JSON.stringify(turn.writer.ofType("message.persisted"))).not.toContain("only this");
    expect(turn.transcript.map(messageText)).toEqual(["old question", "old answer", "hello", "", "look:", "done"]);
  });

  it("replaceMessages: persisted as replaceMessages with previousMessages; the cursor restarts after it", async () => {
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const compact: BeforeLlmCallHook = (event) => {
      if (event.requestIndex !== 0) return undefined;
      const prompt = event.messages[event.messages.length - 1]!;
      return {
        type: "replaceMessages",
        messages: [{ role: "hidden", content: "Summary: the user asked an old question.", timestamp: 5 }, prompt],
        metadata: { compactedFrom: event.messages.length },
      };
    };
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")]), "done"],
      input: { history: history(), tools: [tool], hooks: { beforeLlmCallHook: compact } },
    });

    expect(turn.outcome.kind).toBe("completed");
    expect(userTexts(turn.requests[0]!)).toEqual(["Summary: the user asked an old question.", "hello"]);
    expect(userTexts(turn.requests[1]!)).toEqual(["Summary: the user asked an old question.", "hello"]);
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "user", "assistant", "toolResult"]);

    const reasons = turn.historyChanges.map((change) => change.reason);
    expect(reasons.slice(0, 2)).toEqual(["messageDelta", "replaceMessages"]);
    expect(reasons.slice(2).every((reason) => reason === "messageDelta")).toBe(true);
    const replacement = turn.historyChanges[1]!;
    if (replacement.reason !== "replaceMessages") throw new Error("expected a replacement");
    expect(replacement.metadata).toEqual({ compactedFrom: 3 });
    expect(replacement.previousMessages.map(messageText)).toEqual(["old question", "old answer", "hello"]);
    expect(replacement.messages.map((message) => message.role)).toEqual(["hidden", "user"]);
    // After the replacement only new messages follow, each once.
    expect(turn.historyChanges.slice(2).flatMap((change) => change.messages.map((message) => message.role))).toEqual([
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(turn.transcript.map((message) => message.role)).toEqual([
      "hidden",
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(turn.writer.ofType("message.persisted").map((event) => event.payload.reason)).toEqual(reasons);
  });

  it("appendMessage: a hidden message is persisted and the model sees it as user input", async () => {
    const turn = await runCheckedTurn({
      script: ["ok"],
      input: {
        hooks: {
          beforeLlmCallHook: () => ({
            type: "appendMessage",
            message: { content: "<system-reminder>today is Monday</system-reminder>", source: "clock-ext" },
          }),
        },
      },
    });
    expect(userTexts(turn.requests[0]!)).toEqual(["hello", "<system-reminder>today is Monday</system-reminder>"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "hidden", "assistant"]);
    expect(turn.delivered[1]).toMatchObject({ role: "hidden", source: "clock-ext" });
    const persisted = turn.writer
      .ofType("message.persisted")
      .flatMap((event) => event.payload.messages.map((message) => message.role));
    expect(persisted).toEqual(["user", "hidden", "assistant"]);
    expect(turn.writer.text()).toBe("ok");
  });

  it("a later hook sees what an earlier hook appended", async () => {
    const seenBySecond: string[][] = [];
    const turn = await runCheckedTurn({
      script: ["ok"],
      input: {
        hooks: {
          beforeLlmCallHook: [
            () => ({ type: "appendMessage", message: { content: "note" } }),
            (event) => {
              seenBySecond.push(event.messages.map((message) => message.role));
              return undefined;
            },
          ],
        },
      },
    });
    expect(seenBySecond).toEqual([["user", "hidden"]]);
    expect(turn.outcome.kind).toBe("completed");
  });

  it("abort: no request; the turn fails with code hook", async () => {
    const turn = await runCheckedTurn({
      script: ["never"],
      input: { hooks: { beforeLlmCallHook: () => ({ type: "abort", reason: "budget exhausted" }) } },
    });
    expect(turn.requests).toHaveLength(0);
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect((turn.outcome as { message: string }).message).toContain("budget exhausted");
    expect(terminalStatus(turn.events)).toMatchObject({ status: "failed", error: { code: ErrorCode.Hook } });
    expect(turn.writer.text()).toBe("");
  });

  for (const [name, hook] of [
    [
      "throws",
      () => {
        throw new Error("hook exploded");
      },
    ],
    [
      "rejects",
      async () => {
        throw new Error("hook exploded");
      },
    ],
    ["returns an invalid decision", () => ({ type: "teleport" })],
    ["returns respond without text", () => ({ type: "respond" })],
  ] as [string, BeforeLlmCallHook][]) {
    it(`a hook that ${name} never lets the request reach the model: failed, code hook`, async () => {
      let laterHookCalled = false;
      const turn = await runCheckedTurn({
        script: ["never"],
        input: { hooks: { beforeLlmCallHook: [hook, () => ((laterHookCalled = true), undefined)] } },
      });
      expect(turn.requests).toHaveLength(0);
      expect(laterHookCalled).toBe(false);
      expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
      expect(turn.writer.traces("error").length).toBeGreaterThan(0);
    });
  }

  it("a replacement that cannot be persisted fails the turn before the request", async () => {
    const turn = await runCheckedTurn({
      script: ["never"],
      input: {
        hooks: {
          beforeLlmCallHook: (event) => ({ type: "replaceMessages", messages: [...event.messages] }),
          onHistoryChangedHook: (change) => {
            if (change.reason === "replaceMessages") throw new Error("store is read-only");
          },
        },
      },
    });
    expect(turn.requests).toHaveLength(0);
    expect(turn.outcome).toMatchObject({ kind: "failed" });
  });
});
