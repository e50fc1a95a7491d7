import { describe, expect, it } from "vitest";
import { assistantMessage, response, toolCall, userMessage } from "@turnkit/agent-loop/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import type { HistoryChange } from "../../src/pi-turn-runner/turn-hooks.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText, userTexts } from "../support/turn-queries.js";

describe("onHistoryChangedHook", () => {
  it("receives each new message exactly once, in order, and never the caller's initial history", async () => {
    const history: AgentMessage[] = [
      userMessage("earlier", { timestamp: 1 }),
      assistantMessage("earlier answer", { timestamp: 2 }),
    ];
    const received: HistoryChange[] = [];
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const inbox = [{ text: "and also this" }];
    const turn = await runCheckedTurn({
      script: [response([toolCall("look", { value: "1" }), toolCall("look", { value: "2" })]), "final"],
      input: {
        history,
        tools: [tool],
        beforeUserMessages: [{ role: "hidden", content: "reminder", timestamp: 3 }],
        getSteeringMessages: ({ boundary }) => (boundary === "mid-turn" ? inbox.splice(0) : []),
        hooks: { onHistoryChangedHook: (change) => void received.push(change) },
      },
    });

    expect(received.every((change) => change.reason === "messageDelta")).toBe(true);
    const delivered = received.flatMap((change) => change.messages);
    // Exactly the messages the turn added, in transcript order, each once.
    expect(delivered.map((message) => message.role)).toEqual([
      "hidden",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(new Set(delivered).size).toBe(delivered.length);
    for (const old of history) expect(delivered).not.toContain(old);
    expect(delivered.map(messageText)).not.toContain("earlier");
    expect(turn.transcript.slice(0, 2)).toEqual(history);
    // Each change is announced as message.persisted, in the same order.
    expect(
      turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages.map((message) => message.role)),
    ).toEqual(delivered.map((message) => message.role));
    expect(userTexts(turn.requests[1]!)).toEqual(["earlier", "reminder", "hello", "and also this"]);
  });

  it("is awaited: the next step does not start before the host persisted the previous messages", async () => {
    const order: string[] = [];
    const tool = createRecordingTool("look", {
      executionMode: "parallel",
      answer: () => (order.push("tool"), { content: [{ type: "text", text: "ok" }] }),
    });
    await runCheckedTurn({
      script: [response([toolCall("look")]), "done"],
      input: {
        tools: [tool],
        hooks: {
          onHistoryChangedHook: async (change) => {
            await new Promise((resolve) => setTimeout(resolve, 2));
            order.push(change.messages.map((message) => message.role).join("+"));
          },
        },
      },
    });
    expect(order).toEqual(["user", "assistant", "tool", "toolResult", "assistant"]);
  });

  it("a throw fails the turn with code hook; only what the host accepted counts as persisted", async () => {
    let calls = 0;
    const turn = await runCheckedTurn({
      script: ["answer", "never"],
      input: {
        hooks: {
          onHistoryChangedHook: (change) => {
            calls++;
            if (change.messages.some((message) => message.role === "assistant"))
              throw new Error("database unavailable");
          },
        },
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect((turn.outcome as { message: string }).message).toContain("database unavailable");
    expect(turn.requests).toHaveLength(1);
    expect(calls).toBeGreaterThanOrEqual(2);
    // Only what the host accepted counts as persisted.
    expect(turn.delivered.map((message) => message.role)).toEqual(["user"]);
    expect(turn.writer.ofType("message.persisted")).toHaveLength(1);
  });

  it("a hook that threw is never handed later history: its store never holds a tool result without its call", async () => {
    const received: string[][] = [];
    let failed = false;
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look", { value: "1" })]), "never"],
      input: {
        tools: [tool],
        hooks: {
          onHistoryChangedHook: (change) => {
            received.push(change.messages.map((message) => message.role));
            if (change.messages.some((message) => message.role === "assistant") && !failed) {
              failed = true;
              throw new Error("database unavailable");
            }
          },
        },
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    // The change it refused was the last one it saw: no tool result (or aborted answer) after a gap.
    expect(received).toEqual([["user"], ["assistant"]]);
    expect(turn.transcript.map((message) => message.role)).toEqual(["user"]);
    expect(
      turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages.map((message) => message.role)),
    ).toEqual(["user"]);
  });
});

describe("onStepEndHook", () => {
  it("sees each step and may enqueue a message that the next step sends", async () => {
    const steps: { index: number; results: number }[] = [];
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")]), "first answer", "answer to the reminder"],
      input: {
        tools: [tool],
        hooks: {
          onStepEndHook: (event) => {
            steps.push({ index: event.stepIndex, results: event.toolResults.length });
            if (event.stepIndex === 1) event.enqueue("<system-reminder>you forgot the tests</system-reminder>");
          },
        },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(steps).toEqual([
      { index: 0, results: 1 },
      { index: 1, results: 0 },
      { index: 2, results: 0 },
    ]);
    expect(turn.requests).toHaveLength(3);
    expect(userTexts(turn.requests[2]!)).toEqual(["hello", "<system-reminder>you forgot the tests</system-reminder>"]);
  });

  it("a throw is reported as a debug.trace error and the turn goes on", async () => {
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")]), "done"],
      input: {
        tools: [tool],
        hooks: {
          onStepEndHook: () => {
            throw new Error("metrics exporter down");
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    const errors = turn.writer.traces("error");
    expect(
      errors.filter((trace) => trace.phase === "step" && trace.message.includes("metrics exporter down")),
    ).toHaveLength(2);
  });
});
