import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { AfterToolCallEvent, ToolCallHookEvent } from "../../src/pi-turn-runner/turn-hooks.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText, resolvedToolChunks } from "../support/turn-queries.js";

const twoCalls = () => [
  response([toolCall("shell", { value: "rm -rf /" }), toolCall("shell", { value: "ls" })]),
  "done",
];

describe("beforeToolCallHook", () => {
  it("block with blockedBy permission: the call is not executed, its result is an error; the first block wins", async () => {
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const askedSecond: string[] = [];
    const started: string[] = [];
    const turn = await runCheckedTurn({
      script: twoCalls(),
      input: {
        tools: [shell],
        hooks: {
          beforeToolCallHook: [
            (event) =>
              (event.args as { value: string }).value.startsWith("rm")
                ? { block: true, reason: "The user denied rm.", blockedBy: "permission" }
                : undefined,
            (event) => {
              askedSecond.push(event.toolCall.id);
              return { block: false };
            },
          ],
          onToolExecutionStartHook: (event) => void started.push(event.toolCall.id),
        },
      },
    });

    expect(turn.outcome.kind).toBe("completed");
    expect(shell.calls.map((call) => call.input.value)).toEqual(["ls"]);
    expect(askedSecond).toEqual(["call_2"]);
    expect(started).toEqual(["call_2"]);
    const results = turn.delivered.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.isError, messageText(message)])).toEqual([
      [true, "The user denied rm."],
      [false, "shell:ls"],
    ]);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.status)).toEqual(["failed", "finished"]);
    // A call waiting for (or refused) permission never shows as started.
    const statusesOf = (id: string) =>
      turn.writer
        .ofType("stream.resp")
        .map((event) => event.payload.chunk)
        .filter((chunk) => chunk.kind === "tool_call" && chunk.toolCallId === id)
        .map((chunk) => (chunk as { status: string }).status);
    expect(statusesOf("call_1")).toEqual(["preparing", "failed"]);
    expect(statusesOf("call_2")).toEqual(["preparing", "started", "finished"]);
    // Who blocked it travels with the result: in history and on the stream chunk.
    expect(results.map((message) => message.details)).toEqual([{ blockedBy: "permission" }, expect.anything()]);
    expect(resolvedToolChunks(turn.events)[0]!.result?.details).toEqual({ blockedBy: "permission" });
    const blocked = turn.writer.traces().find((trace) => trace.message === "tool call blocked");
    expect(blocked?.attrs).toMatchObject({
      toolCallId: "call_1",
      blockedBy: "permission",
      reason: "The user denied rm.",
    });
    // The model is told, in the next request.
    expect(JSON.stringify(turn.requests[1]!.context.messages)).toContain("The user denied rm.");
  });

  it("a hook that throws blocks that call and the turn goes on", async () => {
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: twoCalls(),
      input: {
        tools: [shell],
        hooks: {
          beforeToolCallHook: (event) => {
            if (event.toolCall.id === "call_1") throw new Error("policy service down");
            return undefined;
          },
        },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(shell.calls.map((call) => call.input.value)).toEqual(["ls"]);
    const first = turn.delivered.find((message) => message.role === "toolResult")!;
    expect(first).toMatchObject({ isError: true });
    expect(messageText(first)).toContain("policy service down");
    expect(turn.writer.traces("error").some((trace) => trace.phase === "tool")).toBe(true);
  });
});

describe("onToolExecutionStartHook", () => {
  it("is called only for admitted calls, with the host message id, and its throw does not affect the call", async () => {
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const seen: ToolCallHookEvent[] = [];
    const turn = await runCheckedTurn({
      script: [
        response([toolCall("shell", { value: "a" }), toolCall("unknown_tool"), toolCall("shell", { value: "b" })]),
        "done",
      ],
      input: {
        tools: [shell],
        hooks: {
          beforeToolCallHook: (event) =>
            (event.args as { value: string }).value === "b" ? { block: true, reason: "no b" } : undefined,
          onToolExecutionStartHook: (event) => {
            seen.push(event);
            throw new Error("observer broke");
          },
        },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(seen.map((event) => event.toolCall.id)).toEqual(["call_1"]);
    expect(seen[0]).toMatchObject({
      sessionId: "session-1",
      turnId: "turn-1",
      assistantMessageId: "msg_1",
      args: { value: "a" },
    });
    expect(shell.calls.map((call) => call.input.value)).toEqual(["a"]);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.status)).toEqual(["finished", "failed", "failed"]);
    expect(turn.delivered.filter((message) => message.role === "toolResult").map((message) => message.isError)).toEqual(
      [false, true, true],
    );
  });
});

describe("afterToolCallHook", () => {
  it("patches merge in order and each hook sees the patched result", async () => {
    const shell = createRecordingTool("shell", {
      executionMode: "parallel",
      answer: () => ({ content: [{ type: "text", text: "raw output" }], details: { exitCode: 0 } }),
    });
    const seen: { text: string; details: unknown; isError: boolean }[] = [];
    const observe = (event: AfterToolCallEvent) =>
      seen.push({
        text: messageText({ role: "toolResult", content: event.result.content } as never),
        details: event.result.details,
        isError: event.isError,
      });
    const turn = await runCheckedTurn({
      script: [response([toolCall("shell", { value: "x" })]), "done"],
      input: {
        tools: [shell],
        hooks: {
          afterToolCallHook: [
            (event) => (observe(event), { content: [{ type: "text", text: "redacted output" }] }),
            (event) => (observe(event), { details: { exitCode: 0, audited: true } }),
            (event) => (observe(event), { isError: true }),
            (event) => (observe(event), undefined),
          ],
        },
      },
    });
    expect(seen).toEqual([
      { text: "raw output", details: { exitCode: 0 }, isError: false },
      { text: "redacted output", details: { exitCode: 0 }, isError: false },
      { text: "redacted output", details: { exitCode: 0, audited: true }, isError: false },
      { text: "redacted output", details: { exitCode: 0, audited: true }, isError: true },
    ]);
    const result = turn.delivered.find((message) => message.role === "toolResult")!;
    expect(result).toMatchObject({ isError: true, details: { exitCode: 0, audited: true } });
    expect(messageText(result)).toBe("redacted output");
    expect(JSON.stringify(turn.requests[1]!.context.messages)).toContain("redacted output");
    expect(JSON.stringify(turn.requests[1]!.context.messages)).not.toContain("raw output");
    expect(resolvedToolChunks(turn.events)[0]).toMatchObject({
      status: "failed",
      result: { content: [{ type: "text", text: "redacted output" }], isError: true },
    });
  });

  it("terminateAgent stops the agent after the batch: the other calls finish, no further request", async () => {
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: twoCalls(),
      input: {
        tools: [shell],
        hooks: {
          afterToolCallHook: (event) => (event.toolCall.id === "call_1" ? { terminateAgent: true } : undefined),
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(shell.calls).toHaveLength(2);
    expect(turn.requests).toHaveLength(1);
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    expect(turn.writer.messageIds()).toEqual(["msg_1"]);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.status)).toEqual(["finished", "finished"]);
    expect(turn.writer.statuses()).toEqual(["running", "completed"]);
  });

  it("terminateAgent in a sequential batch: the remaining calls get an error result saying a hook stopped them", async () => {
    const shell = createRecordingTool("shell"); // sequential
    const turn = await runCheckedTurn({
      script: twoCalls(),
      input: { tools: [shell], hooks: { afterToolCallHook: () => ({ terminateAgent: true }) } },
    });
    expect(shell.calls).toHaveLength(1);
    expect(turn.requests).toHaveLength(1);
    const results = turn.delivered.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.isError)).toEqual([false, true]);
    expect(messageText(results[1]!)).toContain("hook stopped");
  });

  it("a hook that throws turns the result into an error result; the turn goes on", async () => {
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("shell", { value: "x" })]), "done"],
      input: {
        tools: [shell],
        hooks: {
          afterToolCallHook: () => {
            throw new Error("audit log unavailable");
          },
        },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    const result = turn.delivered.find((message) => message.role === "toolResult")!;
    expect(result).toMatchObject({ isError: true });
    expect(messageText(result)).toContain("audit log unavailable");
  });
});
