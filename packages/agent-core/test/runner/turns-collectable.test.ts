import { setTimeout as sleep } from "node:timers/promises";
import { Type } from "@sinclair/typebox";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { stillReachable } from "../support/garbage.js";
import { PiTurnRunner, defineRuntimeTool } from "../../src/index.js";

describe("many turns on one runner", () => {
  it("leave nothing of a turn reachable once it has ended: inputs, writers, models, tool signals", async () => {
    const runner = new PiTurnRunner();
    const refs: WeakRef<object>[] = [];
    const probe = (object: object) => refs.push(new WeakRef(object));
    const tool = defineRuntimeTool({
      name: "wait",
      description: "Waits 2 ms.",
      parameters: Type.Object({}),
      executionMode: "parallel",
      execute: async (_ctx, _input, signal) => {
        probe(signal);
        await sleep(2);
        return { content: [{ type: "text", text: "ok" }] };
      },
    });

    const runOne = async (index: number) => {
      const model = createScriptedModel([
        response([toolCall("wait", {}, { id: "a" }), toolCall("wait", {}, { id: "b" })]),
        response(toolCall("wait", {}, { id: "c" })),
        "done",
      ]);
      const eventWriter = { push() {} };
      const input = {
        sessionId: `session-${index}`,
        turnId: `turn-${index}`,
        systemPrompt: "test",
        userMessage: { text: "go" },
        llm: { model: model.model, streamFn: model.streamFn },
        tools: [tool],
        disableBuiltinToolFallback: true,
        eventWriter,
      };
      probe(model);
      probe(eventWriter);
      probe(input);
      return (await runner.runTurn(input)).kind;
    };

    const kinds = await Promise.all(Array.from({ length: 40 }, (_, index) => runOne(index)));
    expect(new Set(kinds)).toEqual(new Set(["completed"]));
    expect(refs.length).toBe(40 * 3 + 40 * 3);

    expect(await stillReachable(refs)).toEqual([]);
  });
});
