import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { SteeringBoundary, TurnInputMessage } from "../../src/pi-turn-runner/run-turn-input.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { requestRoles, userTexts } from "../support/turn-queries.js";

/** A host inbox: messages arrive at any time; the runner polls it at step ends. */
function hostInbox(
  policy: (boundary: SteeringBoundary, pending: TurnInputMessage[]) => TurnInputMessage[] = (_, pending) =>
    pending.splice(0),
) {
  const pending: TurnInputMessage[] = [];
  const polls: SteeringBoundary[] = [];
  return {
    pending,
    polls,
    send: (message: TurnInputMessage) => pending.push(message),
    getSteeringMessages: ({ boundary }: { boundary: SteeringBoundary }) => {
      polls.push(boundary);
      return policy(boundary, pending);
    },
  };
}

describe("steering at step end", () => {
  it("a message that arrives during a tool is polled at the mid-turn boundary and sent with the tool results", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("search", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "also check the tests" });
        return { content: [{ type: "text", text: "found 3 files" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("search", { value: "src" })]), "checked both"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });

    expect(turn.outcome.kind).toBe("completed");
    expect(inbox.polls[0]).toBe("mid-turn");
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "also check the tests"]);
    expect(turn.delivered.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(
      turn.writer.traces("info").some((trace) => trace.phase === "steering" && trace.attrs?.boundary === "mid-turn"),
    ).toBe(true);
  });

  it("at the exit boundary the host withholds; tryBeginClose refused once makes the runner poll again; then it closes", async () => {
    // The host keeps messages that arrive at exit for a new turn instead of extending a finished answer.
    const inbox = hostInbox((boundary, pending) => (boundary === "exit" ? [] : pending.splice(0)));
    inbox.send({ text: "a message for the next turn" });
    const closeAttempts: string[] = [];
    const turn = await runCheckedTurn({
      script: ["final answer"],
      input: {
        getSteeringMessages: inbox.getSteeringMessages,
        tryBeginClose: ({ lastAssistantMessage }) => {
          closeAttempts.push(lastAssistantMessage?.role ?? "none");
          return closeAttempts.length > 1; // the first close loses a race with new work
        },
      },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(inbox.polls).toEqual(["exit", "exit"]);
    expect(closeAttempts).toEqual(["assistant", "assistant"]);
    expect(turn.requests).toHaveLength(1);
    expect(inbox.pending.map((message) => message.text)).toEqual(["a message for the next turn"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("when the repeated exit poll returns the message that won the race, the turn goes on with it and closes after", async () => {
    let raced = false;
    const inbox = hostInbox((_, pending) => pending.splice(0));
    const closeAttempts: number[] = [];
    const turn = await runCheckedTurn({
      script: ["first answer", "second answer"],
      input: {
        getSteeringMessages: inbox.getSteeringMessages,
        tryBeginClose: () => {
          closeAttempts.push(inbox.polls.length);
          if (!raced) {
            raced = true;
            inbox.send({ text: "wait, one more thing" });
            return false;
          }
          return true;
        },
      },
    });

    expect(turn.outcome.kind).toBe("completed");
    expect(inbox.polls).toEqual(["exit", "exit", "exit"]);
    expect(closeAttempts).toEqual([1, 3]);
    expect(turn.requests).toHaveLength(2);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "wait, one more thing"]);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("messages of one batchId go in together by steerBatch and reach the model as ONE user message", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "first part", batchId: "b1" });
        inbox.send({ text: "second part", batchId: "b1" });
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "got both parts"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });

    expect(turn.requests).toHaveLength(2);
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "first part|second part"]);
    // History keeps both messages, each with its batch id, for the host to show separately.
    const steered = turn.delivered.filter((message) => message.role === "user").slice(1);
    expect(steered.map((message) => (message as { batchId?: string }).batchId)).toEqual(["b1", "b1"]);
  });

  it("a batch keeps its place in arrival order among messages without a batch id", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "A", batchId: "x" });
        inbox.send({ text: "B" });
        inbox.send({ text: "C", batchId: "x" });
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "saw the batch", "saw B"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.requests).toHaveLength(3);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "A|C"]);
    expect(userTexts(turn.requests[2]!)).toEqual(["hello", "A|C", "B"]);
  });

  it("messages without a batch id go in one per step (one-at-a-time), unlike a batch", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "one" });
        inbox.send({ text: "two" });
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "saw one", "saw two"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.requests).toHaveLength(3);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "one"]);
    expect(userTexts(turn.requests[2]!)).toEqual(["hello", "one", "two"]);
  });

  it("shouldStopAfterSteering true keeps the steering in history but sends no request for it", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => (inbox.send({ text: "stop now" }), { content: [{ type: "text", text: "ok" }] }),
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "never"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages, shouldStopAfterSteering: () => true },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.requests).toHaveLength(1);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
  });
});

describe("after a batch that terminates the agent", () => {
  it("the step end is the exit boundary; steering found there still runs, then the turn closes", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("finish", { executionMode: "parallel" });
    let closes = 0;
    const turn = await runCheckedTurn({
      script: [response([toolCall("finish")]), "answering the late message"],
      input: {
        tools: [tool],
        hooks: {
          afterToolCallHook: () => {
            inbox.send({ text: "late message" });
            return { terminateAgent: true };
          },
        },
        getSteeringMessages: inbox.getSteeringMessages,
        tryBeginClose: () => (closes++, true),
      },
    });

    expect(turn.outcome.kind).toBe("completed");
    expect(inbox.polls).toEqual(["exit", "exit"]);
    expect(turn.requests).toHaveLength(2);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "late message"]);
    expect(closes).toBe(1);
  });

  it("without steering, no request follows the terminating batch", async () => {
    const tool = createRecordingTool("finish", {
      executionMode: "parallel",
      answer: () => ({ content: [{ type: "text", text: "bye" }], terminate: true }),
    });
    const inbox = hostInbox();
    const turn = await runCheckedTurn({
      script: [response([toolCall("finish")]), "never"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.requests).toHaveLength(1);
    expect(inbox.polls).toEqual(["exit"]);
  });
});

describe("convergeAtIdle", () => {
  it("a stop after a step (shouldStopAfterTurn) runs no queued work: the step-end hook's message is handed back, tryBeginClose is asked once", async () => {
    let closes = 0;
    const turn = await runCheckedTurn({
      script: ["first answer", "never requested"],
      input: {
        // The host stops the loop after each step; the step-end hook has queued more work by then.
        shouldStopAfterTurn: () => true,
        hooks: { onStepEndHook: ({ enqueue }) => enqueue("one more thing") },
        getSteeringMessages: () => [],
        tryBeginClose: () => (closes++, true),
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "completed",
      undeliveredMessages: [{ role: "user", content: [{ type: "text", text: "one more thing" }] }],
    });
    expect(turn.requests).toHaveLength(1);
    expect(closes).toBe(1);
  });

  it("steering queued when the agent went idle continues the turn until closing succeeds", async () => {
    let enqueued = false;
    let closes = 0;
    const turn = await runCheckedTurn({
      script: ["first answer", "second answer"],
      input: {
        // The first close loses the race with the step-end hook's message, queued as the agent went idle.
        hooks: {
          onStepEndHook: ({ enqueue }) => {
            if (!enqueued) enqueue("one more thing");
            enqueued = true;
          },
        },
        getSteeringMessages: () => [],
        tryBeginClose: () => (closes++, true),
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "one more thing"]);
    expect(closes).toBe(1);
  });
});
