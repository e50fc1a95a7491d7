/*
 * Tool calls whose arguments were no JSON object (a cut-off JSON text, a
 * number, a list): the turn answers each with an error naming what the
 * model sent and never runs the tool, and the call carries what was sent
 * as `{ rawArguments }`. A replay of the turn (as after a crash between
 * the model's response and the calls' answers) reads the response from its
 * record and must refuse the calls the same way: the tool below takes any
 * object, so a replay that took the stored `{ rawArguments }` for real
 * arguments would run it.
 */
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import { RAW_TOOL_ARGUMENTS_KEY } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, durableTool } from "../src/index.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { assertLogInvariants } from "./support/log-assertions.js";

/** What the model sends as each call's arguments. */
const SENT: unknown[] = ['{"path": "a', 42, ["a", "b"]];
const runs: unknown[] = [];

const look = defineRuntimeTool({
  name: "look",
  description: "Looks at a path (every argument optional)",
  parameters: Type.Object({ path: Type.Optional(Type.String()) }),
  execute: async (_ctx, args) => {
    runs.push(args);
    return { content: [{ type: "text", text: "looked" }] };
  },
});

const buildTurn: BuildDurableTurn = () => ({
  systemPrompt: "You look at things.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) => {
      const answered = context.messages.at(-1)?.role === "toolResult";
      const entry = answered
        ? response("done")
        : response(SENT.map((args, i) => toolCall("look", args as never, { id: `call-${i}` })));
      return createScriptedModel([entry]).streamFn(model, context, options);
    },
  },
  llmRetry: false,
  tools: [durableTool(look, { replay: "safe" })],
});

const fixture = useInProcessWorker({ workerId: "in-test-raw-arguments", buildTurn });

describe("tool calls whose arguments were no object", () => {
  it("are refused without running the tool, live and again on a replay from the records", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-raw",
      turnId: "raw",
      userMessage: { text: "look" },
    });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const logged = await fixture.worker.client.readEvents(turn);
    const results = logged.flatMap((e) =>
      e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" && e.payload.chunk.result
        ? [{ args: e.payload.chunk.arguments, result: e.payload.chunk.result }]
        : [],
    );
    expect(results.map((r) => r.args)).toEqual(SENT.map((sent) => ({ [RAW_TOOL_ARGUMENTS_KEY]: sent })));
    for (const { result } of results) {
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/Tool look was not run: its arguments must be one JSON object/);
    }
    expect(runs).toEqual([]);

    await fixture.replay(turn);
    expect(runs).toEqual([]);
    expect(await fixture.worker.client.readEvents(turn)).toEqual(logged);
    assertLogInvariants(logged);
  });
});
