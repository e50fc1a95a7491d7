/**
 * Messages and content that host code hands a turn (the input's history,
 * steering answers, hook decisions, tool results) are checked where they
 * enter: a malformed one is the host's mistake, named by its field, and
 * never reaches the model or the transcript, nor fails a later request as
 * if the provider had.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall, userMessage } from "@turnkit/agent-loop/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { type RunTurnInput, TurnkitConfigError } from "../../src/index.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { contentProblem, inputMessageProblem, messageProblem } from "../../src/messages/content-checks.js";
import { rejectedBeforeStart } from "../support/rejected-before-start.js";

/** The transcript holds one tool result: an error result whose only block is `text`. */
function expectOneErrorResult(transcript: readonly AgentMessage[], text: string): void {
  const results = transcript.filter((message) => message.role === "toolResult");
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({ isError: true, content: [{ type: "text", text }] });
}

/** A turn whose model calls tool `t` once, then answers "done". */
const callOnce = () => [response(toolCall("t", {}, { id: "call-1" })), "done"];

describe("the shape checks", () => {
  it("name the first malformed field of a message, and pass well-formed ones and roles Turnkit does not know", () => {
    expect(messageProblem({ role: "user", content: 5 })).toBe(
      ".content must be a string or an array of content blocks, got 5",
    );
    expect(
      messageProblem({
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image", data: "x" },
        ],
      }),
    ).toBe(".content[1].mimeType must be a string, got undefined");
    expect(messageProblem({ role: "assistant", content: "plain" })).toBe(
      '.content must be an array of content blocks, got "plain"',
    );
    expect(messageProblem({ role: "assistant", content: [{ type: "toolCall", name: "t", arguments: {} }] })).toBe(
      ".content[0].id must be a string, got undefined",
    );
    expect(messageProblem({ role: "toolResult", content: [] })).toBe(".toolCallId must be a string, got undefined");
    expect(messageProblem({ role: "toolResult", toolCallId: "c", content: [{ type: "thinking", thinking: "" }] })).toBe(
      '.content[0].type must be one of "text", "image", got "thinking"',
    );
    expect(messageProblem({ role: "host", data: 1 })).toBe(".kind must be a string, got undefined");
    expect(messageProblem(null)).toBe(" must be a message object with a role, got null");
    expect(messageProblem(userMessage("fine"))).toBeUndefined();
    expect(messageProblem({ role: "notice", anything: 5 })).toBeUndefined();
    expect(contentProblem("text")).toBeUndefined();
    expect(contentProblem([null], undefined, false)).toBe(
      'content[0] must be a content block { type: "text", "image", ... }, got null',
    );
    expect(inputMessageProblem({ text: "a", images: [{ type: "image", data: "x", mimeType: "image/png" }] })).toBe(
      undefined,
    );
    expect(inputMessageProblem({ text: "a", batchId: 7 })).toBe(".batchId must be a string, got 7");
  });
});

describe("host content is checked where it enters a turn", () => {
  it("a user message that says nothing (empty or only whitespace text, no image) is refused before any event and request, naming the field", async () => {
    for (const text of ["", "  \n\t "]) {
      for (const images of [undefined, []]) {
        const error = await rejectedBeforeStart((input) => {
          input.userMessage = { text, ...(images && { images }) };
        });
        expect(TurnkitConfigError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: "invalid_turn_input" });
        expect((error as Error).message).toMatch(
          /^RunTurnInput\.userMessage\.text is empty \(or only whitespace\) and there are no images/,
        );
      }
    }
  });

  it("an image with no text, and a continued history beside an empty user message, still run", async () => {
    const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
    const pictured = await runCheckedTurn({
      script: ["a picture"],
      input: { userMessage: { text: "", images: [image] } },
    });
    expect(pictured.outcome.kind).toBe("completed");
    expect(pictured.model.requests[0]!.context.messages.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "" }, image],
    });
    const continued = await runCheckedTurn({
      script: ["continued"],
      input: { startMode: "continue", history: [userMessage("earlier")], userMessage: { text: "" } },
    });
    expect(continued.outcome.kind).toBe("completed");
  });

  it("a history message with malformed content is rejected before the turn starts, naming the field", async () => {
    const error = await rejectedBeforeStart((input) => {
      input.history = [userMessage("earlier"), { role: "user", content: [{ type: "text", text: 42 }], timestamp: 1 }];
    });
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "invalid_turn_input",
      message: "RunTurnInput.history[1].content[0].text must be a string, got 42",
    });
  });

  it("a history tool call whose arguments are no object (a pi transcript may hold a JSON text) is rejected, naming the field", async () => {
    const error = await rejectedBeforeStart((input) => {
      input.history = [
        userMessage("earlier"),
        { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "t", arguments: "[1, 2" }], timestamp: 1 },
      ];
    });
    expect(error).toMatchObject({
      code: "invalid_turn_input",
      message: 'RunTurnInput.history[1].content[0].arguments must be an object, got "[1, 2"',
    });
  });

  it("an input whose getter throws while it is read is a TurnkitConfigError, the host's error as cause", async () => {
    const failure = new Error("the session store is down");
    const error = await rejectedBeforeStart((input) => {
      Object.defineProperty(input, "history", {
        enumerable: true,
        get() {
          throw failure;
        },
      });
    });
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "invalid_turn_input",
      message: "RunTurnInput could not be read: the session store is down",
      cause: failure,
    });
  });

  it("a steering answer with a malformed message fails the turn as the host's (internal), and none of it is sent", async () => {
    let polls = 0;
    const turn = await runCheckedTurn({
      script: ["first answer", "never"],
      input: {
        getSteeringMessages: () => (polls++ === 0 ? [{ text: "fine" }, { text: "see", images: ["cat.png"] }] : []),
      } as never,
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: ErrorCode.Internal,
        message:
          'The host callback getSteeringMessages returned an invalid message: [1].images[0] must be an image { type: "image", data, mimeType }',
      },
    });
    expect(turn.requests).toHaveLength(1);
    expect(turn.transcript.map((message) => message.role)).toEqual(["user", "assistant"]);
    // The well-formed message of that answer is handed back, not lost.
    const handedBack = turn.outcome.kind === "failed" ? (turn.outcome.undeliveredMessages ?? []) : [];
    expect(handedBack).toMatchObject([{ role: "user", content: [{ type: "text", text: "fine" }] }]);
  });

  it("a before-LLM replacement with a malformed message fails closed (code hook): the model is never asked", async () => {
    const turn = await runCheckedTurn({
      script: ["never"],
      input: {
        hooks: {
          beforeLlmCallHook: () => ({
            type: "replaceRequestMessages",
            messages: [{ role: "user", content: 5 } as never],
          }),
        },
      },
    });
    expect(turn.requests).toHaveLength(0);
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: ErrorCode.Hook,
        message:
          "beforeLlmCallHook returned replaceRequestMessages with messages[0].content must be a string or an array of content blocks, got 5",
      },
    });
  });

  it("a before-LLM appendMessage whose content holds a malformed block fails closed (code hook)", async () => {
    const turn = await runCheckedTurn({
      script: ["never"],
      input: {
        hooks: {
          beforeLlmCallHook: () => ({ type: "appendMessage", message: { content: [{ type: "text" }] as never } }),
        },
      },
    });
    expect(turn.requests).toHaveLength(0);
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: ErrorCode.Hook,
        message:
          "beforeLlmCallHook returned appendMessage with message.content[0].text must be a string, got undefined",
      },
    });
  });

  it("a before-LLM appendMessage whose source is no string fails closed (code hook)", async () => {
    const turn = await runCheckedTurn({
      script: ["never"],
      input: {
        hooks: {
          beforeLlmCallHook: () => ({ type: "appendMessage", message: { content: "note", source: 5 as never } }),
        },
      },
    });
    expect(turn.requests).toHaveLength(0);
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: ErrorCode.Hook,
        message: "beforeLlmCallHook returned appendMessage with message.source that is no string (5)",
      },
    });
  });

  for (const [name, decision, expected] of [
    ["replaceText without a string", { type: "replaceText", text: 5 }, "replaceText needs text to be a string, got 5"],
    ["retry without a prompt", { type: "retry", reason: "again" }, "retry needs prompt to be a string, got undefined"],
  ] as const) {
    it(`an after-LLM ${name} fails the turn (code hook) and keeps the response as the model gave it`, async () => {
      const turn = await runCheckedTurn({
        script: ["the answer", "never"],
        input: { hooks: { afterLlmCallHook: () => decision as never } },
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: { code: ErrorCode.Hook, message: `afterLlmCallHook returned an invalid decision: ${expected}` },
      });
      expect(turn.requests).toHaveLength(1);
      expect(turn.writer.text()).toBe("the answer");
    });
  }

  it("a step-end hook that queues a malformed message gets a TypeError at enqueue, naming the field; nothing is queued", async () => {
    let thrown: unknown;
    const turn = await runCheckedTurn({
      script: callOnce(),
      input: {
        tools: [createRecordingTool("t")],
        hooks: {
          onStepEndHook: (event) => {
            try {
              event.enqueue({ role: "user", content: [{ type: "image", data: "x" }] } as never);
            } catch (error) {
              thrown = error;
            }
          },
        },
      },
    });
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toBe(
      "onStepEndHook enqueue: the message.content[0].mimeType must be a string, got undefined",
    );
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.requests).toHaveLength(2);
    expect(turn.transcript.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("a before-tool decision that is not one blocks the call (fail closed): the tool never runs", async () => {
    const tool = createRecordingTool("t");
    const turn = await runCheckedTurn({
      script: callOnce(),
      input: { tools: [tool], hooks: { beforeToolCallHook: () => ({ block: "yes" }) as never } },
    });
    expect(tool.calls).toHaveLength(0);
    expectOneErrorResult(
      turn.transcript,
      'Tool call blocked: beforeToolCallHook returned an invalid decision: block must be a boolean, got "yes"',
    );
    expect(turn.outcome.kind).toBe("completed");
  });

  it("an after-tool patch with malformed content turns the result into an error result naming the field", async () => {
    const tool = createRecordingTool("t");
    const turn = await runCheckedTurn({
      script: callOnce(),
      input: { tools: [tool], hooks: { afterToolCallHook: () => ({ content: "plain text" }) as never } },
    });
    expect(tool.calls).toHaveLength(1);
    expectOneErrorResult(
      turn.transcript,
      'afterToolCallHook failed: it returned an invalid patch: content must be an array of content blocks, got "plain text"',
    );
  });

  it("a tool result whose text block holds no string is an error result naming the field, not a malformed transcript", async () => {
    const tool = createRecordingTool("t", { answer: () => ({ content: [{ type: "text", text: 5 as never }] }) });
    const turn = await runCheckedTurn({ script: callOnce(), input: { tools: [tool] } });
    expectOneErrorResult(
      turn.transcript,
      'Tool "t" returned an invalid result: content[0].text must be a string, got 5',
    );
    expect(turn.outcome.kind).toBe("completed");
  });
});
