import { describe, expect, it } from "vitest";
import { runAgentLoop, type AgentMessage, type StreamFn } from "../src/index.js";
import { assistantMessage, createScriptedModel, text } from "../src/testing/index.js";
import { user } from "./support/scenario.js";
import { textEvents } from "./support/text-events.js";

async function runOn(streamFn: StreamFn): Promise<AgentMessage[]> {
  const scripted = createScriptedModel([]);
  return runAgentLoop(
    [user("go")],
    { systemPrompt: "", messages: [], tools: [] },
    { model: scripted.model, convertToLlm: (all) => all as never },
    () => {},
    undefined,
    streamFn,
  );
}

describe("responses that are not pi-ai streams", () => {
  it("a response that is not async iterable fails the response with the message a for-await loop gives", async () => {
    const messages = await runOn(() => ({}) as never);
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "response is not async iterable",
    });
  });

  it("an async iterator method that answers no object fails the response with the message a for-await loop gives", async () => {
    const messages = await runOn(() => ({ [Symbol.asyncIterator]: () => 5 }) as never);
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "Result of the Symbol.asyncIterator method is not an object",
    });
  });

  it("an iterator result that is no object fails the response with the message a for-await loop gives", async () => {
    const messages = await runOn(
      () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(5) }) }) as never,
    );
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "Iterator result 5 is not an object",
    });
  });

  it("a plain iterable of events is read as a for-await loop reads it", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    const messages = await runOn(() => textEvents(final) as never);
    expect(messages.at(-1)).toBe(final);
  });
});
