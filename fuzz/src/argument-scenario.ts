/**
 * Malformed tool-call arguments: invalid JSON fragments sent as the
 * raw arguments, wrong types, long strings and prototype-polluting keys
 * (`__proto__`, `constructor.prototype`), through an `Agent` or a
 * `PiTurnRunner`. Every call must be answered, and no object's prototype may
 * change.
 */
import fc from "fast-check";
import { Agent } from "@turnkit/agent-loop";
import { createScriptedModel, createVirtualClock, response, toolCall } from "@turnkit/agent-loop/testing";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { type AgentRunObservation, observeAgent } from "./observe-agent.js";
import { type TurnRunObservation, observeTurn } from "./observe-turn.js";
import { SCENARIO_TOOL_PARAMETERS } from "./scenario-tools.js";
import { withFallbackAnswers } from "./scripted-entries.js";

/** Raw arguments as a model might send them. */
export type RawArguments =
  /** A JSON object text, parsed with `JSON.parse` (so `__proto__` stays an own key). */
  | { kind: "json"; text: string }
  /** A string where an object belongs, e.g. a cut-off JSON fragment. */
  | { kind: "fragment"; text: string }
  /** Any other value where an object belongs (array, number, boolean, null), or an object JSON cannot write as it is. */
  | { kind: "value"; value: unknown };

export interface ArgumentScenario {
  path: "agent" | "runner";
  calls: { tool: "alpha" | "prepared"; raw: RawArguments }[];
  /** Characters per streamed argument delta (default 4096). */
  chunkSize?: number;
  /**
   * Runner only: the calls' ids as the model sends them: each its own
   * (`arg0`, `arg1`, ...; the default), all one (`arg`), or all empty. The
   * runner gives a repeated or empty id one of its own, so each call is
   * answered once (invariant 2) and its events stay valid (invariant 20).
   */
  ids?: "distinct" | "same" | "empty";
}

const DANGEROUS_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "value",
  "n",
  "polluted",
];

/** Keys and nesting that target prototypes: `{"__proto__": …}`, `{"constructor": {"prototype": …}}`. */
const pollutingJson: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom(...DANGEROUS_KEYS),
      fc.oneof(
        fc.constant('{"polluted": true}'),
        fc.constant('{"prototype": {"polluted": "yes"}}'),
        fc.constant('{"__proto__": {"polluted": 1}}'),
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(", ")}}`);

const fragments = fc.oneof(
  fc.constantFrom(
    '{"value": ',
    '{"value": "unterminated',
    "{,}",
    '{"n": 1,,}',
    "[1, 2",
    "}",
    "",
    "null",
    '{"__proto__": {"polluted": true',
  ),
  fc.string({ maxLength: 40 }),
);

export const rawArgumentsArbitrary: fc.Arbitrary<RawArguments> = fc.oneof(
  { weight: 4, arbitrary: pollutingJson.map((text): RawArguments => ({ kind: "json", text })) },
  { weight: 2, arbitrary: fragments.map((text): RawArguments => ({ kind: "fragment", text })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.record({
          value: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
          n: fc.oneof(fc.string(), fc.object()),
        }),
        fc.integer({ min: 1_000, max: 20_000 }).map((length) => ({ value: "x".repeat(length) })),
        // What a stream function may hand over and JSON cannot write: `undefined` or `NaN` in a list, a NaN.
        fc.record({ value: fc.constantFrom([1, undefined], [Number.NaN], [[undefined]]), n: fc.integer() }),
        fc.constantFrom(null, Number.NaN),
      )
      .map((value): RawArguments => ({ kind: "value", value })),
  },
);

export const argumentScenarioArbitrary: fc.Arbitrary<ArgumentScenario> = fc
  .record({
    path: fc.constantFrom("agent" as const, "runner" as const),
    calls: fc.array(
      fc.record({ tool: fc.constantFrom("alpha" as const, "prepared" as const), raw: rawArgumentsArbitrary }),
      { minLength: 1, maxLength: 4 },
    ),
    ids: fc.oneof(
      { weight: 4, arbitrary: fc.constant("distinct" as const) },
      { weight: 1, arbitrary: fc.constantFrom("same" as const, "empty" as const) },
    ),
  })
  // The Agent keeps the model's ids as pi's does: repeated ones only for the runner.
  .map((scenario) => (scenario.path === "agent" ? { ...scenario, ids: "distinct" as const } : scenario));

/** The id the scenario's model gives its `index`-th call. */
export function scriptedCallId(scenario: ArgumentScenario, index: number): string {
  switch (scenario.ids ?? "distinct") {
    case "same":
      return "arg";
    case "empty":
      return "";
    default:
      return `arg${index}`;
  }
}

export function rawArgumentValue(raw: RawArguments): unknown {
  switch (raw.kind) {
    case "json":
      return JSON.parse(raw.text);
    case "fragment":
      return raw.text;
    case "value":
      return raw.value;
    default: {
      const unknown: never = raw;
      throw new Error(`Unknown raw arguments: ${JSON.stringify(unknown)}`);
    }
  }
}

/** What the tools received, and the run as observed (Agent or runner). */
export type ArgumentRunObservation = { received: unknown[]; callIds: string[] } & (
  | { path: "agent"; run: AgentRunObservation }
  | { path: "runner"; run: TurnRunObservation }
);

/** The scripted response: one call per generated argument value (ids `arg0`, `arg1`, ...). */
function argumentResponse(scenario: ArgumentScenario) {
  return response(
    scenario.calls.map((call, index) =>
      toolCall(call.tool, rawArgumentValue(call.raw) as Record<string, unknown>, {
        id: scriptedCallId(scenario, index),
      }),
    ),
    { chunkSize: scenario.chunkSize ?? 4_096 },
  );
}

export async function runArgumentScenario(scenario: ArgumentScenario): Promise<ArgumentRunObservation> {
  const clock = createVirtualClock();
  const model = createScriptedModel([argumentResponse(scenario)], { clock });
  const received: unknown[] = [];
  const callIds = scenario.calls.map((_, index) => `arg${index}`);
  const prepareArguments = (args: unknown) => args as { value?: string; n?: number };
  if (scenario.path === "agent") {
    const agent = new Agent({
      initialState: {
        systemPrompt: "arguments",
        model: model.model,
        tools: (["alpha", "prepared"] as const).map((name) => ({
          name,
          label: name,
          description: name,
          parameters: SCENARIO_TOOL_PARAMETERS,
          ...(name === "prepared" && { prepareArguments }),
          execute: async (_id: string, params: unknown) => {
            received.push(params);
            return { content: [{ type: "text" as const, text: "ok" }], details: {} };
          },
        })),
      },
      streamFn: withFallbackAnswers(model),
    });
    const run = await observeAgent({ agent, clock, runs: [() => agent.prompt("call the tools")] });
    return { path: "agent", run, received, callIds };
  }
  const run = await observeTurn({
    input: {
      sessionId: "s",
      turnId: "t",
      systemPrompt: "arguments",
      userMessage: { text: "call the tools" },
      llm: { model: model.model, streamFn: withFallbackAnswers(model) },
      llmRetry: false,
      disableBuiltinToolFallback: true,
      tools: (["alpha", "prepared"] as const).map((name) =>
        defineRuntimeTool({
          name,
          description: name,
          parameters: SCENARIO_TOOL_PARAMETERS,
          executionMode: "parallel",
          ...(name === "prepared" && { prepareArguments }),
          execute: (_ctx, input) => {
            received.push(input);
            return { content: [{ type: "text", text: "ok" }] };
          },
        }),
      ),
    },
    clock,
    controller: new AbortController(),
  });
  return { path: "runner", run, received, callIds };
}
