/**
 * Bad input at the edges: a key of `RunTurnInput` (or of its `llm`,
 * `hooks`, `llmRetry`, `userMessage`) that Turnkit does not know throws
 * `TurnkitConfigError` (`unknown_key`) before any event, naming the key, where
 * it is and the nearest valid key; a typo is never ignored silently.
 */
import { describe, expect, it } from "vitest";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/index.js";
import { assertKnownKeys } from "../../src/internal.js";
import { createRecordingEventWriter, runScriptedTurn } from "../../src/testing/index.js";

async function rejection(input: Record<string, unknown>) {
  const writer = createRecordingEventWriter();
  const error = await runScriptedTurn({ script: ["never"], writer, input: input as never }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(writer.events).toHaveLength(0);
  if (!TurnkitConfigError.isInstance(error)) throw new Error(`expected a TurnkitConfigError, got ${String(error)}`);
  expect(error.code).toBe(ConfigErrorCode.UnknownKey);
  return error.message;
}

describe("unknown keys in a turn's input", () => {
  it("RunTurnInput", async () => {
    expect(await rejection({ getSteeringMessage: () => [] })).toBe(
      "unknown key 'getSteeringMessage' in RunTurnInput; did you mean 'getSteeringMessages'?",
    );
  });

  it("RunTurnInput.llm (LlmConfig)", async () => {
    expect(await rejection({ llm: { maxToken: 100 } })).toBe(
      "unknown key 'maxToken' in RunTurnInput.llm; did you mean 'maxTokens'?",
    );
  });

  it("RunTurnInput.hooks", async () => {
    expect(await rejection({ hooks: { onHistoryChanged: () => undefined } })).toBe(
      "unknown key 'onHistoryChanged' in RunTurnInput.hooks; did you mean 'onHistoryChangedHook'?",
    );
  });

  it("RunTurnInput.llmRetry", async () => {
    expect(await rejection({ llmRetry: { retries: 2 } })).toMatch(/^unknown key 'retries' in RunTurnInput\.llmRetry; /);
  });

  it("RunTurnInput.userMessage", async () => {
    expect(await rejection({ userMessage: { text: "hi", image: [] } })).toBe(
      "unknown key 'image' in RunTurnInput.userMessage; did you mean 'images'?",
    );
  });
});

describe("assertKnownKeys", () => {
  it("accepts known keys and ignores non-objects", () => {
    expect(() => assertKnownKeys({ a: 1, b: undefined }, ["a", "b"], "thing")).not.toThrow();
    expect(() => assertKnownKeys(undefined, ["a"], "thing")).not.toThrow();
    expect(() => assertKnownKeys("text", ["a"], "thing")).not.toThrow();
  });

  it("names the key, the place and the nearest valid key; lists the valid keys when none is close", () => {
    expect(() => assertKnownKeys({ overlay: {} }, ["overlays", "params"], "profile")).toThrow(
      "unknown key 'overlay' in profile; did you mean 'overlays'?",
    );
    expect(() => assertKnownKeys({ zzz: 1 }, ["disable", "enable"], "profile")).toThrow(
      "unknown key 'zzz' in profile; valid keys: 'disable', 'enable'",
    );
    expect(() => assertKnownKeys({ MaxTokens: 1 }, ["maxTokens"], "llm")).toThrow("did you mean 'maxTokens'?");
  });

  it("extensible: members of the value's own pass, a misspelt allowed key still throws", () => {
    const allowed = ["id", "description", "init"];
    expect(() =>
      assertKnownKeys({ id: "x", status: "idle", subscribe: () => undefined }, allowed, "extension", {
        extensible: true,
      }),
    ).not.toThrow();
    expect(() =>
      assertKnownKeys({ id: "x", inti: () => undefined }, allowed, "extension", { extensible: true }),
    ).toThrow("unknown key 'inti' in extension; did you mean 'init'?");
  });
});
