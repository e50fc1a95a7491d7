/**
 * `RunTurnInput.shouldStopAfterTurn`: asked after each step that did not
 * fail; `true` ends the turn there, without polling the host for steering
 * first, and without running work queued at that point (it is handed back
 * in the outcome). The host's `tryBeginClose` is still asked once, so it
 * closes intake.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";

describe("shouldStopAfterTurn ends the turn without polling", () => {
  it("a stop after a tool step: the tool ran, no steering poll, no further request, queued work handed back", async () => {
    const work = createRecordingTool("work", { executionMode: "parallel" });
    const calls: string[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("work", { value: "1" })]), "never requested"],
      input: {
        tools: [work],
        hooks: { onStepEndHook: ({ enqueue }) => enqueue("queued by the step-end hook") },
        getSteeringMessages: ({ boundary }) => {
          calls.push(`poll:${boundary}`);
          return [{ text: "steering the host had" }];
        },
        shouldStopAfterTurn: ({ toolResults }) => {
          calls.push(`stop?:${toolResults.length}`);
          return true;
        },
        tryBeginClose: () => {
          calls.push("close");
          return true;
        },
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "completed",
      undeliveredMessages: [{ role: "user", content: [{ type: "text", text: "queued by the step-end hook" }] }],
    });
    expect(work.calls).toHaveLength(1);
    expect(turn.requests).toHaveLength(1);
    expect(calls).toEqual(["stop?:1", "close"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("false keeps the turn going: the host is polled after it answered", async () => {
    const calls: string[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("work", { value: "1" })]), "done"],
      input: {
        tools: [createRecordingTool("work")],
        getSteeringMessages: ({ boundary }) => (calls.push(`poll:${boundary}`), []),
        shouldStopAfterTurn: () => (calls.push("stop?"), false),
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(calls).toEqual(["stop?", "poll:mid-turn", "stop?", "poll:exit"]);
  });
});
