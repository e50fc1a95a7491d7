import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { SteeringBoundary, TurnInputMessage } from "../../src/pi-turn-runner/run-turn-input.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText, requestRoles, userTexts } from "../support/turn-queries.js";

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

describe("steering that says nothing (empty or whitespace-only text, no image)", () => {
  const warningsOf = (turn: Awaited<ReturnType<typeof runCheckedTurn>>) =>
    turn.writer.ofType("runtime.warning").map((event) => event.payload);

  it("mid-turn: left out of the request and of history, never handed back, with a steering_dropped warning; the turn goes on", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "" });
        inbox.send({ text: "  \n\t", images: [] });
        inbox.send({ text: "and the docs" });
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "checked the docs"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "and the docs"]);
    expect(turn.delivered.filter((message) => message.role === "user").map(messageText)).toEqual([
      "hello",
      "and the docs",
    ]);
    expect(warningsOf(turn)).toEqual([
      {
        code: "steering_dropped",
        message:
          "2 steering messages from getSteeringMessages said nothing (empty or whitespace-only text, no image) and were left out",
        count: 2,
        source: "getSteeringMessages",
      },
    ]);
  });

  it("at the exit boundary: the turn does not ask the model again for it; it closes after the answer", async () => {
    const inbox = hostInbox();
    inbox.send({ text: " " });
    let closes = 0;
    const turn = await runCheckedTurn({
      script: ["final answer", "never requested"],
      input: { getSteeringMessages: inbox.getSteeringMessages, tryBeginClose: () => (closes++, true) },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
    expect(inbox.polls).toEqual(["exit"]);
    expect(closes).toBe(1);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(warningsOf(turn)).toMatchObject([{ code: "steering_dropped", count: 1 }]);
  });

  it("in a batch: only the members that say something reach the model, as one message", async () => {
    const inbox = hostInbox();
    const tool = createRecordingTool("work", {
      executionMode: "parallel",
      answer: () => {
        inbox.send({ text: "first part", batchId: "b1" });
        inbox.send({ text: "   ", batchId: "b1" });
        inbox.send({ text: "second part", batchId: "b1" });
        inbox.send({ text: "", batchId: "b2" });
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "got both parts", "never requested"],
      input: { tools: [tool], getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.requests).toHaveLength(2);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "first part|second part"]);
    expect(warningsOf(turn)).toMatchObject([{ code: "steering_dropped", count: 2 }]);
  });

  it("in an answer refused for a malformed message: the others are handed back, but for those that say nothing", async () => {
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")]), "never requested"],
      input: {
        tools: [createRecordingTool("work", { executionMode: "parallel" })],
        getSteeringMessages: () => [{ text: "" }, { text: "keep me" }, { text: 7 } as never],
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "internal" },
      undeliveredMessages: [{ role: "user", content: [{ type: "text", text: "keep me" }] }],
    });
    expect(turn.outcome.kind === "failed" && turn.outcome.undeliveredMessages).toHaveLength(1);
    expect(warningsOf(turn)).toMatchObject([{ code: "steering_dropped", count: 1, source: "getSteeringMessages" }]);
  });

  it("an image alone says something: it is sent", async () => {
    const inbox = hostInbox();
    // Bytes no provider takes: the request names the image by a placeholder, still a message of its own.
    inbox.send({ text: "", images: [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }] });
    const turn = await runCheckedTurn({
      script: ["first answer", "saw the image"],
      input: { getSteeringMessages: inbox.getSteeringMessages },
    });
    expect(turn.requests).toHaveLength(2);
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "assistant", "user"]);
    expect(warningsOf(turn).map((warning) => warning.code)).not.toContain("steering_dropped");
  });

  it("queued by a step-end hook with enqueue: left out the same way, source enqueue; the turn ends after its answer", async () => {
    const turn = await runCheckedTurn({
      script: ["first answer", "never requested"],
      input: {
        hooks: {
          onStepEndHook: ({ enqueue }) => {
            enqueue("");
            enqueue({ role: "user", content: [{ type: "text", text: " \n" }], timestamp: 0 });
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(warningsOf(turn)).toMatchObject([
      { code: "steering_dropped", count: 1, source: "enqueue" },
      { code: "steering_dropped", count: 1, source: "enqueue" },
    ]);
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
