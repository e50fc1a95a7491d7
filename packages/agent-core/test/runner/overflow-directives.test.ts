/**
 * A `skip` or `respond` decided while recovering from a context overflow is
 * honoured: the overflowed request is not sent again, and no directive is
 * left over to answer a later request in its place.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { BeforeLlmCallHook } from "../../src/index.js";
import { assistantMessage, createRecordingTool, runCheckedTurn, type ScriptEntry } from "../../src/testing/index.js";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const overflow = (): ScriptEntry => assistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });

/** Decides `decision` only while recovering from an overflow. */
const onOverflow =
  (decision: ReturnType<BeforeLlmCallHook>): BeforeLlmCallHook =>
  (event) =>
    event.reason === "overflow" ? decision : undefined;

describe("skip or respond decided during overflow recovery", () => {
  it("respond: the model is not called again; the hook's text answers the overflowed request", async () => {
    const turn = await runCheckedTurn({
      script: [overflow(), "never sent"],
      input: {
        hooks: {
          beforeLlmCallHook: onOverflow({ type: "respond", text: "The conversation is too long; start a new one." }),
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.writer.text()).toBe("The conversation is too long; start a new one.");
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("skip: the model is not called again and the turn ends without a new answer", async () => {
    const turn = await runCheckedTurn({
      script: [overflow(), "never sent"],
      input: { hooks: { beforeLlmCallHook: onOverflow({ type: "skip" }) } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.writer.text()).toBe("");
    expect(turn.delivered.map((message) => message.role)).toEqual(["user"]);
  });

  it("respond during recovery leaves no directive behind: the next request of the turn goes to the model", async () => {
    const work = createRecordingTool("work", { executionMode: "parallel" });
    let answered = false;
    const turn = await runCheckedTurn({
      // The hook answers the overflowed request with a tool call's worth of text only once.
      script: [response([toolCall("work", { value: "1" })]), overflow(), "the model's own answer"],
      input: {
        tools: [work],
        hooks: {
          beforeLlmCallHook: (event) => {
            if (event.reason !== "overflow" || answered) return undefined;
            answered = true;
            return { type: "respond", text: "answered by the hook" };
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(turn.writer.text()).toBe("answered by the hook");
  });
});
