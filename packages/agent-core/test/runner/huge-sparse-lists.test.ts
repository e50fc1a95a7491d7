/**
 * A list whose length is 2^32 - 1 and which holds a few entries (or none:
 * `list.length = n` with a garbage `n`, `new Array(4294967295)`) costs
 * nothing to make, and billions of steps to walk by index. Wherever host
 * code hands one over (a hook's messages or content, a steering answer,
 * warnings, a tool's progress, result details or prompt guidelines), the
 * turn refuses it at its first hole or carries it as `"[Too long]"`, at
 * once: never seconds of CPU, never the engine's `Invalid array length`.
 */
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, TurnkitConfigError, defineRuntimeTool } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { copyFromHost } from "../../src/messages/host-copy.js";
import { jsonSafe } from "../../src/event-bridge/json-safe.js";
import { createRecordingEventWriter, createScriptedModel, response, toolCall } from "../../src/testing/index.js";

/** `first` entries, then holes up to a length of 2^32 - 1. */
function hugeList(...first: unknown[]): unknown[] {
  const list = [...first];
  list.length = 2 ** 32 - 1;
  return list;
}

const FAST_MS = 1_000;

function turnInput(extra: Record<string, unknown> = {}, execute?: (onUpdate: (update: unknown) => void) => unknown) {
  const model = createScriptedModel([response([toolCall("lookup", {})]), "done"]);
  const tool = defineRuntimeTool({
    name: "lookup",
    description: "Looks up",
    parameters: Type.Object({}),
    execute: (_ctx, _input, _signal, onUpdate) =>
      (execute?.(onUpdate as never) ?? { content: [{ type: "text", text: "found" }] }) as never,
  });
  return {
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: model.model, streamFn: model.streamFn },
    tools: [tool],
    disableBuiltinToolFallback: true,
    eventWriter: createRecordingEventWriter(),
    ...extra,
  };
}

async function timed<T>(work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  expect(performance.now() - started).toBeLessThan(FAST_MS);
  return result;
}

describe("a host list with a length of 2^32 - 1", () => {
  it("is copied from the host by its entries, holes kept", () => {
    const copy = timed(async () => copyFromHost(hugeList({ role: "user" })));
    return copy.then((list) => {
      expect(list.length).toBe(2 ** 32 - 1);
      expect(list[0]).toEqual({ role: "user" });
      expect(1 in list).toBe(false);
    });
  });

  it('is "[Too long]" in an event', () => {
    expect(jsonSafe({ list: hugeList(1) })).toEqual({ list: "[Too long]" });
  });

  it("from a before-LLM hook's replacement is refused at its first hole", async () => {
    const input = turnInput({
      hooks: {
        beforeLlmCallHook: () => ({
          type: "replaceRequestMessages",
          messages: hugeList({ role: "user", content: "x", timestamp: 1 }),
        }),
      },
    });
    const outcome = await timed(() => new PiTurnRunner().runTurn(input as never));
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect(outcome.kind === "failed" && outcome.message).toContain("messages[1]");
  });

  it("from getSteeringMessages fails the turn naming its first hole, its message handed back", async () => {
    let polls = 0;
    const input = turnInput({ getSteeringMessages: () => (polls++ === 0 ? hugeList({ text: "steer" }) : []) });
    const outcome = await timed(() => new PiTurnRunner().runTurn(input as never));
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "internal" } });
    expect(outcome.kind === "failed" && outcome.message).toContain("[1]");
    expect(outcome.undeliveredMessages?.map((message) => JSON.stringify(message))).toEqual([
      expect.stringContaining("steer"),
    ]);
  });

  it("as the turn's warnings is refused at once", async () => {
    const error = await timed(() =>
      new PiTurnRunner().runTurn(turnInput({ warnings: hugeList() }) as never).catch((caught: unknown) => caught),
    );
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("RunTurnInput.warnings[0]");
  });

  it('in a tool\'s progress and result details is carried as "[Too long]"', async () => {
    const input = turnInput({}, (onUpdate) => {
      onUpdate({ content: hugeList({ type: "text", text: "working" }), details: { list: hugeList(1) } });
      return { content: [{ type: "text", text: "found" }], details: { list: hugeList(1) } };
    });
    const outcome = await timed(() => new PiTurnRunner().runTurn(input as never));
    expect(outcome).toMatchObject({ kind: "completed" });
    const text = JSON.stringify(input.eventWriter.events);
    expect(text).toContain('"list":"[Too long]"');
  });

  it("as a tool's prompt guidelines is refused at once", async () => {
    const tool = defineRuntimeTool({
      name: "lookup",
      description: "Looks up",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "found" }] }),
    });
    const odd = { ...tool, def: { ...tool.def, promptGuidelines: hugeList("use it") } };
    const error = await timed(() =>
      new PiTurnRunner().runTurn(turnInput({ tools: [odd] }) as never).catch((caught: unknown) => caught),
    );
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
  });
});
