/**
 * A value the host hands over that `JSON.stringify` or `String` cannot
 * show (a bigint, a symbol, a revoked proxy, an object without a
 * prototype) or shows wrongly (`NaN` as `null`) is refused naming its
 * field, as any wrong value is: describing it for the message never throws
 * the engine's own error instead.
 */
import { describe, expect, it } from "vitest";
import { Type } from "@sinclair/typebox";
import { createScriptedModel } from "@turnkit/agent-loop/testing";
import { createRecordingEventWriter } from "@turnkit/agent-core/testing";
import { rejectedBeforeStart } from "../support/rejected-before-start.js";
import { PiTurnRunner, TurnkitConfigError, defineRuntimeTool } from "../../src/index.js";
import { revokedProxy } from "@turnkit/agent-loop/testing";

const ENGINE_TEXT =
  /serialize a BigInt|on a proxy that has been revoked|Cannot convert|is not a function|Cannot read properties/;

/** What `runTurn` rejects with when `change` spoils a valid input, nothing started; a `TurnkitConfigError`. */
async function refusal(change: (input: Record<string, any>) => void): Promise<TurnkitConfigError> {
  const error = await rejectedBeforeStart(change);
  expect(TurnkitConfigError.isInstance(error), String(error)).toBe(true);
  return error as TurnkitConfigError;
}

const HOSTILE: [string, () => unknown, string][] = [
  ["a bigint", () => 7n, "bigint"],
  ["NaN", () => Number.NaN, "NaN"],
  ["a symbol", () => Symbol("odd"), "symbol"],
  ["a revoked proxy", revokedProxy, "an unreadable value"],
  ["an object without a prototype", () => Object.create(null), "object"],
];

describe("values that JSON or String cannot show are refused naming their field", () => {
  for (const [label, make, shown] of HOSTILE) {
    it(`${label} as llm.cacheRetention, llm.hostMaxOutputTokens, llmRetry.maxRetries, llm.firstEventTimeoutMs and budget.maxCost`, async () => {
      const cases: [string, (input: Record<string, any>) => void][] = [
        ["llm.cacheRetention", (input) => (input.llm.cacheRetention = make())],
        ["llm.hostMaxOutputTokens", (input) => (input.llm.hostMaxOutputTokens = make())],
        ["llmRetry.maxRetries", (input) => (input.llmRetry = { maxRetries: make() })],
        ["firstEventTimeoutMs", (input) => (input.llm.firstEventTimeoutMs = make())],
        ["RunTurnInput.budget.maxCost", (input) => (input.budget = { maxCost: make() })],
      ];
      for (const [field, change] of cases) {
        const error = await refusal(change);
        expect(error.message).toContain(field);
        expect(error.message).toContain(`got ${shown}`);
        expect(error.message).not.toMatch(ENGINE_TEXT);
      }
    });
  }

  it("a revoked proxy where an object is expected (hooks, a fallback model's headers or one header) names that field", async () => {
    const hooks = await refusal((input) => (input.hooks = revokedProxy()));
    expect(hooks.message).toBe("RunTurnInput.hooks must be an object, got an unreadable value");
    const backup = createScriptedModel(["backup"], { model: { id: "backup", provider: "backup" } });
    const headers = await refusal(
      (input) =>
        (input.llm.fallback = {
          models: [{ model: backup.model, streamFn: backup.streamFn, headers: revokedProxy() }],
        }),
    );
    expect(headers.message).toMatch(/^llm\.fallback\.models\[0\]\.headers/);
    expect(headers.message).not.toMatch(ENGINE_TEXT);
    const header = await refusal(
      (input) =>
        (input.llm.fallback = {
          models: [{ model: backup.model, streamFn: backup.streamFn, headers: { "x-key": revokedProxy() } }],
        }),
    );
    expect(header.message).toBe("llm.fallback.models[0].headers.x-key must be a string, got an unreadable value");
  });

  it("a tool's executionMode or schema type given as a bigint or a revoked proxy", () => {
    for (const [value, shown] of [
      [7n, "bigint"],
      [revokedProxy(), "an unreadable value"],
    ] as const) {
      const define = (change: object) => () =>
        defineRuntimeTool({
          name: "t",
          description: "d",
          parameters: Type.Object({}),
          execute: async () => ({ content: [], details: {} }),
          ...change,
        } as never);
      expect(define({ executionMode: value })).toThrow(
        `executionMode must be "sequential" or "parallel", got ${shown}`,
      );
      expect(define({ parameters: { type: value } })).toThrow(`got type ${shown}`);
    }
  });

  it("a beforeLlmCallHook decision holding a bigint fails the turn as the hook's, in the runner's words", async () => {
    const model = createScriptedModel(["never"]);
    const outcome = await new PiTurnRunner().runTurn({
      sessionId: "s",
      turnId: "t",
      systemPrompt: "p",
      userMessage: { text: "hello" },
      llm: { model: model.model, streamFn: model.streamFn },
      hooks: { beforeLlmCallHook: async () => ({ action: "bogus", count: 1n }) as never },
      eventWriter: createRecordingEventWriter(),
    });
    expect(outcome).toMatchObject({
      kind: "failed",
      error: { code: "hook", message: "beforeLlmCallHook returned an invalid decision: object" },
    });
  });
});
