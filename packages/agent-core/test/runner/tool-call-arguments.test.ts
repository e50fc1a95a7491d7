/**
 * Tool-call arguments that are not a JSON object (a cut-off JSON text, a
 * number, a list): runtime events and the host's history carry them as
 * `{ rawArguments: <what the model sent> }`, so every event stays valid, and
 * the call is answered with an error naming what was sent; neither the
 * tool nor its `prepareArguments` runs. Arguments holding what JSON cannot
 * write (`undefined` in a list) reach events and the tool as plain JSON.
 */
import { Type } from "@sinclair/typebox";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import {
  type ProtocolAssistantMessage,
  RAW_TOOL_ARGUMENTS_KEY,
  type RuntimeEvent,
  validateRuntimeEvent,
} from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool } from "../../src/index.js";

/** A tool accepting any object, recording what its shim and `execute` were handed. */
function recordingTool() {
  const prepared: unknown[] = [];
  const executed: unknown[] = [];
  const tool = defineRuntimeTool({
    name: "alpha",
    description: "Takes anything",
    parameters: Type.Object({}),
    prepareArguments: (args) => {
      prepared.push(args);
      return args as Record<string, never>;
    },
    execute: (_ctx, input) => {
      executed.push(input);
      return { content: [{ type: "text", text: "ran" }] };
    },
  });
  return { tool, prepared, executed };
}

/** Every event passes the protocol's check and reads back from JSON as it is. */
function expectPersistable(events: readonly RuntimeEvent[]): void {
  for (const event of events) {
    expect(validateRuntimeEvent(event)).toMatchObject({ ok: true });
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  }
}

function toolCallChunks(events: readonly RuntimeEvent[]) {
  return events.flatMap((event) =>
    event.type === "stream.resp" && event.payload.chunk.kind === "tool_call" ? [event.payload.chunk] : [],
  );
}

describe("tool-call arguments that are not a JSON object", () => {
  it.each([
    ["an empty text", "", 'a string, ""'],
    ["a cut-off JSON text", "[1, 2", 'a string, "[1, 2"'],
    ["a number", 5, "a number, 5"],
    ["a list", [1, 2], "a list, [1,2]"],
  ])(
    "%s: events and history carry { rawArguments }, the result names it, the tool never runs",
    async (_name, raw, named) => {
      const { tool, prepared, executed } = recordingTool();
      const turn = await runCheckedTurn({
        script: [response(toolCall("alpha", raw as never, { id: "call-1" })), "done"],
        input: { tools: [tool] },
      });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expectPersistable(turn.events);
      const wrapped = { [RAW_TOOL_ARGUMENTS_KEY]: raw };
      const chunks = toolCallChunks(turn.events);
      expect(chunks.map((chunk) => [chunk.status, chunk.arguments])).toEqual([
        ["preparing", wrapped],
        ["failed", wrapped],
      ]);
      const persisted = turn.writer.ofType("message.persisted").flatMap((event) => event.payload.messages);
      const call = persisted.flatMap((message) =>
        message.role === "assistant"
          ? (message as ProtocolAssistantMessage).content.filter((block) => block.type === "toolCall")
          : [],
      );
      expect(call).toEqual([expect.objectContaining({ id: "call-1", arguments: wrapped })]);
      const result = turn.transcript.find((message) => message.role === "toolResult");
      expect(result).toMatchObject({ isError: true });
      const text = (result as { content: { text: string }[] }).content[0]!.text;
      expect(text).toContain("Tool alpha was not run: its arguments must be one JSON object");
      expect(text).toContain(`the model sent ${named}`);
      expect(prepared).toEqual([]);
      expect(executed).toEqual([]);
      // The next request sends the model its call as an object, as every provider expects.
      const sent = turn.requests[1]!.context.messages.find((message) => message.role === "assistant");
      expect(sent?.content).toContainEqual(expect.objectContaining({ type: "toolCall", arguments: wrapped }));
    },
  );

  it("an object holding what JSON cannot write reaches events and the tool as plain JSON", async () => {
    const { tool, executed } = recordingTool();
    const turn = await runCheckedTurn({
      script: [response(toolCall("alpha", { list: [1, undefined, Number.NaN] }, { id: "call-1" })), "done"],
      input: { tools: [tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expectPersistable(turn.events);
    expect(toolCallChunks(turn.events).map((chunk) => chunk.arguments)).toEqual([
      { list: [1, null, null] },
      { list: [1, null, null] },
      { list: [1, null, null] },
    ]);
    expect(executed).toEqual([{ list: [1, null, null] }]);
  });

  it("a __proto__ key the model sent stays an own field when the arguments are copied", async () => {
    const { tool, executed } = recordingTool();
    const raw = JSON.parse('{"__proto__": {"polluted": true}, "list": [1]}') as Record<string, unknown>;
    (raw.list as unknown[]).push(undefined);
    const turn = await runCheckedTurn({
      script: [response(toolCall("alpha", raw, { id: "call-1" })), "done"],
      input: { tools: [tool] },
    });
    expectPersistable(turn.events);
    const [preparing] = toolCallChunks(turn.events);
    expect(Object.getPrototypeOf(preparing!.arguments)).toBe(Object.prototype);
    expect(Object.keys(preparing!.arguments!)).toEqual(["__proto__", "list"]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(executed).toHaveLength(1);
  });
});
