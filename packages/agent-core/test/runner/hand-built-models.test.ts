/**
 * A model a host builds by hand (an OpenAI-compatible endpoint of its own)
 * often lacks a field pi-ai's providers read. Sent through pi-ai's
 * `streamSimple`, such a turn used to fail with the engine's own words
 * ("Cannot read properties of undefined (reading 'includes')") as an
 * upstream failure, after its first events. Now `runTurn` refuses it
 * before any event, naming the field; with a stream function of the
 * host's, only a field of the wrong type is refused.
 */
import { getModel } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { ConfigErrorCode, PiTurnRunner, TurnkitConfigError } from "../../src/index.js";
import { createScriptedModel, response } from "../../src/testing/index.js";
import type { RunTurnInput } from "../../src/index.js";

const complete = {
  id: "my-model",
  name: "My model",
  api: "openai-completions",
  provider: "my-endpoint",
  baseUrl: "http://127.0.0.1:9/v1",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 32_000,
  maxTokens: 4_096,
};

function without(field: string): Record<string, unknown> {
  const { [field]: _left, ...rest } = complete as Record<string, unknown>;
  return rest;
}

function input(model: unknown, extra: Partial<RunTurnInput["llm"]> = {}): { input: RunTurnInput; events: unknown[] } {
  const events: unknown[] = [];
  return {
    events,
    input: {
      sessionId: "s",
      turnId: "t",
      systemPrompt: "You answer.",
      userMessage: { text: "hi" },
      llm: { model: model as never, apiKey: "sk-test", ...extra },
      llmRetry: false,
      eventWriter: { push: (event) => void events.push(event) },
    },
  };
}

async function refusal(model: unknown, extra: Partial<RunTurnInput["llm"]> = {}): Promise<string> {
  const { input: turn, events } = input(model, extra);
  const error = await new PiTurnRunner().runTurn(turn).catch((caught: unknown) => caught);
  expect(events).toEqual([]);
  if (!TurnkitConfigError.isInstance(error)) throw new Error(`expected a TurnkitConfigError, got ${String(error)}`);
  expect(error.code).toBe(ConfigErrorCode.InvalidTurnInput);
  return error.message;
}

describe("a hand-built model sent through pi-ai", () => {
  it.each([
    ["input", 'RunTurnInput.llm.model.input must be a list of "text" and "image", got nothing'],
    ["cost", "RunTurnInput.llm.model.cost must be an object of prices per million tokens, got nothing"],
    ["baseUrl", "RunTurnInput.llm.model.baseUrl must be a string, got nothing"],
    ["maxTokens", "RunTurnInput.llm.model.maxTokens must be a positive integer, got nothing"],
    ["id", "RunTurnInput.llm.model.id must be a non-empty string, got nothing"],
    ["api", "RunTurnInput.llm.model.api must be a non-empty string, got nothing"],
  ])("without %s is refused before any event, naming the field", async (field, message) => {
    expect(await refusal(without(field))).toBe(message);
  });

  it("with a field of the wrong type, or an api no provider serves, is refused naming it", async () => {
    expect(await refusal({ ...complete, cost: { ...complete.cost, output: "0.6" } })).toBe(
      'RunTurnInput.llm.model.cost.output must be a number of at least 0, got "0.6"',
    );
    expect(await refusal({ ...complete, input: ["text", "audio"] })).toBe(
      'RunTurnInput.llm.model.input must be a list of "text" and "image", got a list',
    );
    expect(await refusal({ ...complete, api: "my-api" })).toBe(
      'RunTurnInput.llm.model.api "my-api" has no pi-ai provider registered (pass llm.streamFn to send it yourself)',
    );
  });

  it("pi-ai's own models pass", async () => {
    const { input: turn } = input(getModel("openai", "gpt-4o-mini"), {
      streamFn: createScriptedModel([response("fine")]).streamFn,
    });
    expect((await new PiTurnRunner().runTurn(turn)).kind).toBe("completed");
    const { input: sent } = input(complete);
    // Sent for real, to a port nothing listens on: the turn fails on the connection, not on the model.
    const outcome = await new PiTurnRunner().runTurn(sent);
    expect(outcome.kind).toBe("failed");
    expect(outcome.kind === "failed" && outcome.error.code).toBe("network");
  });
});

describe("a model with a stream function of the host's", () => {
  it("may leave out what only pi-ai reads, but not hold a field of the wrong type", async () => {
    const scripted = createScriptedModel([response("fine")]);
    const minimal = { id: "mine", api: "mine", provider: "mine" };
    const { input: turn } = input(minimal, { streamFn: scripted.streamFn });
    expect((await new PiTurnRunner().runTurn(turn)).kind).toBe("completed");
    expect(await refusal({ ...minimal, maxTokens: "4k" }, { streamFn: scripted.streamFn })).toBe(
      'RunTurnInput.llm.model.maxTokens must be a positive integer, got "4k"',
    );
    // A fraction would be sent as the request's output limit, which providers refuse.
    expect(await refusal({ ...minimal, maxTokens: 8191.5 }, { streamFn: scripted.streamFn })).toBe(
      "RunTurnInput.llm.model.maxTokens must be a positive integer, got 8191.5",
    );
  });
});

describe("a fallback model", () => {
  it("sent through pi-ai is checked as the turn's own model is", async () => {
    const message = await refusal(complete, { fallback: { models: [{ model: without("input") as never }] } });
    expect(message).toBe('llm.fallback.models[0].model.input must be a list of "text" and "image", got nothing');
  });
});
