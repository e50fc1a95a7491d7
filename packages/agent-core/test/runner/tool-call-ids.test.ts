/**
 * Tool-call ids a model sends empty, or twice within one response (some
 * OpenAI-compatible servers do): each call gets an id of its own
 * (`<id>_<n>`, `call_<n>` for an empty one), so it has its own chunks and
 * exactly one result, every event is valid, and the next request pairs
 * each call with its result.
 */
import { Type } from "@sinclair/typebox";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { validateRuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool } from "../../src/index.js";

describe("tool-call ids that are empty or repeated within a response", () => {
  it.each([
    ["repeated", ["c1", "c1", "c2"], ["c1", "c1_2", "c2"]],
    ["empty", ["", ""], ["call_1", "call_2"]],
  ])("%s: each call is announced, run and answered under an id of its own", async (_name, sent, expected) => {
    let count = 0;
    const tool = defineRuntimeTool({
      name: "t",
      description: "Counts",
      parameters: Type.Object({}),
      executionMode: "parallel",
      execute: () => ({ content: [{ type: "text", text: `run ${++count}` }] }),
    });
    const turn = await runCheckedTurn({
      script: [response(sent.map((id) => toolCall("t", {}, { id }))), "done"],
      input: { tools: [tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    for (const event of turn.events) expect(validateRuntimeEvent(event)).toMatchObject({ ok: true });
    const chunks = turn.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "tool_call"
        ? [`${event.payload.chunk.status} ${event.payload.chunk.toolCallId}`]
        : [],
    );
    expect(chunks).toEqual([
      ...expected.map((id) => `preparing ${id}`),
      ...expected.map((id) => `started ${id}`),
      ...expected.map((id) => `finished ${id}`),
    ]);
    const results = turn.transcript.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : []));
    expect(results).toEqual(expected);
    const sentCalls = turn.requests[1]!.context.messages.flatMap((message) =>
      message.role === "assistant"
        ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
        : [],
    );
    expect(sentCalls).toEqual(expected);
  });
});
