/**
 * A message the host handed over (steering its poll returned, a message an
 * `onStepEndHook` queued) is either delivered into history or handed back
 * in the outcome's `undeliveredMessages`; never silently dropped, whatever
 * stops the turn (a before-LLM `skip`, `shouldStopAfterSteering`, a
 * failure, an abort). And a turn that stops asks `tryBeginClose`.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@turnkit/agent-loop";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";
import { messageText } from "../support/turn-queries.js";

const toolStep = () => [response([toolCall("work", { value: "1" })]), "second answer", "third answer", "fourth answer"];

/** A poll that hands over `texts` once (at the first step end), then nothing. */
function pollOnce(...texts: string[]): NonNullable<RunTurnInput["getSteeringMessages"]> {
  let given = false;
  return () => {
    if (given) return [];
    given = true;
    return texts.map((text) => ({ text }));
  };
}

/** Every handed-over text, where it ended up: delivered into history, or handed back. */
async function whereDidTheyGo(input: Partial<RunTurnInput>) {
  let closes = 0;
  const turn = await runCheckedTurn({
    script: toolStep(),
    input: {
      tools: [createRecordingTool("work", { executionMode: "parallel" })],
      tryBeginClose: () => (closes++, true),
      ...input,
    },
  });
  const delivered = turn.delivered
    .filter((message) => message.role === "user")
    .map(messageText)
    .filter((text) => text !== "hello");
  const handedBack = (turn.outcome.undeliveredMessages ?? []).map((message) => messageText(message as AgentMessage));
  // A host that reads only events gets the same messages from the terminal status.
  expect(turn.writer.ofType("session.status").at(-1)?.payload.undeliveredMessages).toEqual(
    turn.outcome.undeliveredMessages,
  );
  return { turn, delivered, handedBack, closes };
}

describe("host steering is never silently dropped", () => {
  it("a poll with two messages, then a before-LLM skip: the one sent is delivered, the other handed back; tryBeginClose asked", async () => {
    const { turn, delivered, handedBack, closes } = await whereDidTheyGo({
      getSteeringMessages: pollOnce("first steer", "second steer"),
      hooks: { beforeLlmCallHook: ({ requestIndex }) => (requestIndex === 1 ? { type: "skip" } : undefined) },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect([...delivered, ...handedBack].sort()).toEqual(["first steer", "second steer"]);
    expect(handedBack).toEqual(["second steer"]);
    expect(closes).toBe(1);
  });

  it("the terminal session.status hands back the same messages as the outcome; the running status none", async () => {
    const { turn } = await whereDidTheyGo({
      getSteeringMessages: pollOnce("first steer", "second steer"),
      hooks: { beforeLlmCallHook: ({ requestIndex }) => (requestIndex === 1 ? { type: "skip" } : undefined) },
    });
    const [running, terminal] = turn.writer.ofType("session.status").map((event) => event.payload);
    expect(running).not.toHaveProperty("undeliveredMessages");
    expect(terminal?.undeliveredMessages?.map((message) => messageText(message as AgentMessage))).toEqual([
      "second steer",
    ]);
    expect(terminal?.undeliveredMessages).toEqual(turn.outcome.undeliveredMessages);
  });

  it("a poll with two messages and shouldStopAfterSteering true: both accounted for, none sent to the model", async () => {
    const { turn, delivered, handedBack, closes } = await whereDidTheyGo({
      getSteeringMessages: pollOnce("first steer", "second steer"),
      shouldStopAfterSteering: () => true,
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.requests).toHaveLength(1);
    expect([...delivered, ...handedBack].sort()).toEqual(["first steer", "second steer"]);
    expect(closes).toBe(1);
  });

  it("messages queued by onStepEndHook's enqueue, then a skip: handed back, in order", async () => {
    const { turn, delivered, handedBack } = await whereDidTheyGo({
      hooks: {
        onStepEndHook: ({ stepIndex, enqueue }) => {
          if (stepIndex === 0) {
            enqueue("queued one");
            enqueue("queued two");
          }
        },
        beforeLlmCallHook: ({ requestIndex }) => (requestIndex === 1 ? { type: "skip" } : undefined),
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect([...delivered, ...handedBack]).toEqual(["queued one", "queued two"]);
    expect(handedBack).toEqual(["queued two"]);
  });

  it("a failure after steering arrived: the undelivered steering is handed back with the failed outcome", async () => {
    const { turn, delivered, handedBack } = await whereDidTheyGo({
      getSteeringMessages: pollOnce("first steer", "second steer"),
      hooks: {
        beforeLlmCallHook: ({ requestIndex }) => (requestIndex === 1 ? { type: "abort", reason: "policy" } : undefined),
      },
    });
    expect(turn.outcome.kind).toBe("failed");
    expect([...delivered, ...handedBack].sort()).toEqual(["first steer", "second steer"]);
  });

  it("a turn that delivers everything hands nothing back (the field is absent)", async () => {
    const { turn, delivered } = await whereDidTheyGo({ getSteeringMessages: pollOnce("only steer") });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(delivered).toEqual(["only steer"]);
  });
});
