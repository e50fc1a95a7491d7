/**
 * A turn reads its input once: each field of `RunTurnInput` and of its
 * `llm`, `hooks`, `userMessage`, `llmRetry` and `budget` is read one time,
 * checked, and the turn runs on what was read. A host's getter that throws
 * or answers something else on a later read (a lazy config, a proxy over a
 * store) can then neither make `runTurn` reject after its first event nor
 * hand the turn a value the check never saw.
 */
import { PiTurnRunner, TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import {
  createRecordingEventWriter,
  createRecordingTool,
  createScriptedModel,
  response,
  toolCall,
} from "../../src/testing/index.js";

function turnInput() {
  const model = createScriptedModel([response([toolCall("grep", {})]), "done"]);
  return {
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: model.model, streamFn: model.streamFn, maxTokens: 100 },
    tools: [createRecordingTool("grep")],
    disableBuiltinToolFallback: true,
    hooks: { onHistoryChangedHook: () => {}, onStepEndHook: () => {}, beforeLlmCallHook: () => undefined },
    llmRetry: { maxRetries: 1 },
    budget: { maxSteps: 5 },
    hookTimeoutMs: 5_000,
    eventWriter: createRecordingEventWriter(),
  } as Record<string, any>;
}

/** Replaces the field at `path` by a getter answering its value on the first read and `later()` after. */
function readOnceThen(input: Record<string, any>, path: string, later: () => unknown): { reads: () => number } {
  const keys = path.split(".");
  const holder = keys.slice(0, -1).reduce((object, key) => object[key], input);
  const key = keys.at(-1)!;
  const value = holder[key];
  let reads = 0;
  Object.defineProperty(holder, key, {
    enumerable: true,
    get: () => (++reads === 1 ? value : later()),
  });
  return { reads: () => reads };
}

const FIELDS = [
  "llm.streamFn",
  "llm.maxTokens",
  "hooks.onHistoryChangedHook",
  "hooks.onStepEndHook",
  "hooks.beforeLlmCallHook",
  "llmRetry.maxRetries",
  "budget.maxSteps",
  "hookTimeoutMs",
  "disableBuiltinToolFallback",
  "userMessage.text",
  "sessionId",
  "eventWriter.push",
];

describe("a turn's input", () => {
  it.each(FIELDS)("is read once at %s: a getter that throws on a later read changes nothing", async (path) => {
    const input = turnInput();
    const field = readOnceThen(input, path, () => {
      throw new Error(`a later read of ${path} failed`);
    });
    const outcome = await new PiTurnRunner().runTurn(input as never);
    expect(outcome).toMatchObject({ kind: "completed" });
    expect(field.reads()).toBe(1);
    expect(input.eventWriter.events.at(-1)).toMatchObject({
      type: "session.status",
      payload: { status: "completed" },
    });
  });

  it.each(FIELDS)("is read once at %s: a getter that answers junk on a later read changes nothing", async (path) => {
    const input = turnInput();
    readOnceThen(input, path, () => 5);
    await expect(new PiTurnRunner().runTurn(input as never)).resolves.toMatchObject({ kind: "completed" });
  });

  it.each(["tools.0", "tools.0.def", "tools.0.impl", "tools.0.impl.execute"])(
    "has its tools read when the tool table is built: a getter at %s that throws on that later read is a TurnkitConfigError before any event",
    async (path) => {
      const input = turnInput();
      readOnceThen(input, path, () => {
        throw new Error(`a later read of ${path} failed`);
      });
      const error = await new PiTurnRunner().runTurn(input as never).catch((caught: unknown) => caught);
      expect(TurnkitConfigError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(`a later read of ${path} failed`);
      expect(input.eventWriter.events).toEqual([]);
    },
  );

  it("refuses a hook list with a length of 2^32 - 1 and a hole first at once", async () => {
    const hooks: unknown[] = [];
    hooks.length = 2 ** 32 - 1;
    const input = { ...turnInput(), hooks: { onStepEndHook: hooks } };
    const started = performance.now();
    const error = await new PiTurnRunner().runTurn(input as never).catch((caught: unknown) => caught);
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("RunTurnInput.hooks.onStepEndHook");
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
