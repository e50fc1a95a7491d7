/**
 * A turn input that cannot be read (a revoked proxy somewhere in it) is
 * refused before anything starts with a `TurnkitConfigError` whose message
 * says so in its own words.
 */
import { PiTurnRunner, TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { createRecordingEventWriter, createScriptedModel } from "../../src/testing/index.js";
import { revokedProxy } from "@turnkit/agent-loop/testing";

function llm() {
  const model = createScriptedModel(["hi"]);
  return { model: model.model, streamFn: model.streamFn };
}

const ENGINE_TEXT = /Cannot perform|Cannot read properties|is not a function/;

describe("a turn input that cannot be read", () => {
  it.each([
    ["hooks", () => ({ hooks: revokedProxy() })],
    ["an entry of tools", () => ({ tools: [revokedProxy()] })],
    ["llm.fallback", () => ({ llm: { ...llm(), fallback: revokedProxy() } })],
  ] as const)("(%s) is refused as a TurnkitConfigError in its own words", async (_name, input) => {
    const turn = {
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: llm(),
      eventWriter: createRecordingEventWriter(),
      ...input(),
    };
    const error = await new PiTurnRunner().runTurn(turn as never).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toMatch(ENGINE_TEXT);
  });
});
