/**
 * A list with a hole (`[a, , b]`, `new Array(n)`) where the turn takes a
 * list from the host: the hole is an `undefined` entry and is refused as
 * one, naming its place, as any other malformed entry. Before, checks that
 * skip holes (`every`, `forEach`, `map`) let it through and the turn
 * tripped over it later with an engine error.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { type RunScriptedTurnOptions, createRecordingTool, runScriptedTurn } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { TurnkitConfigError } from "../../src/index.js";

function withHole<T>(item: T): T[] {
  const list: T[] = new Array(2);
  list[1] = item;
  return list;
}

async function refusal(input: RunScriptedTurnOptions["input"]) {
  const error = await runScriptedTurn({ script: ["hi"], input }).then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(TurnkitConfigError.isInstance(error)).toBe(true);
  return error as TurnkitConfigError;
}

describe("a hole in a list the host hands the turn", () => {
  it("a steering poll's answer: the turn fails with code internal naming the entry, and the rest comes back", async () => {
    let polls = 0;
    const turn = await runScriptedTurn({
      script: [response([toolCall("shell", { value: "a" })]), "done"],
      input: {
        tools: [createRecordingTool("shell", { executionMode: "parallel" })],
        getSteeringMessages: () => (polls++ === 0 ? withHole({ text: "also this" }) : []),
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: {
        code: "internal",
        message:
          "The host callback getSteeringMessages returned an invalid message: [0] must be a message { text, images?, batchId? }, got undefined",
      },
    });
    expect(
      (turn.outcome.undeliveredMessages ?? []).map((message) =>
        JSON.stringify((message as { content: unknown }).content),
      ),
    ).toEqual([JSON.stringify([{ type: "text", text: "also this" }])]);
  });

  it("a hook list: refused before the turn starts, naming the hook field", async () => {
    const error = await refusal({ hooks: { beforeToolCallHook: withHole(() => undefined) } });
    expect(error.code).toBe("invalid_turn_input");
    expect(error.message).toContain(
      "RunTurnInput.hooks.beforeToolCallHook must be a function or an array of functions",
    );
  });

  it("the tools: refused before the turn starts, naming tools[0]", async () => {
    const error = await refusal({ tools: withHole(createRecordingTool("shell")) });
    expect(error.code).toBe("invalid_tool");
    expect(error.message).toContain("tools[0]: expected a RuntimeTool { def, impl }, got undefined");
  });

  it("the warnings: refused before the turn starts, naming warnings[0]", async () => {
    const error = await refusal({ warnings: withHole({ code: "images_dropped", message: "x", dropped: 1 } as never) });
    expect(error.code).toBe("invalid_turn_input");
    expect(error.message).toContain("RunTurnInput.warnings[0] must be a runtime.warning payload");
  });
});
