/**
 * Malformed tool-call arguments, through `Agent` and
 * `PiTurnRunner`: invalid JSON fragments as the raw arguments, wrong types,
 * a 1 MB string, and prototype-polluting keys (`__proto__`,
 * `constructor.prototype`). Each run is checked with every invariant of its
 * path; then every call must have exactly one result, invalid ones an error
 * result, and no object's prototype may change: the built-in prototypes keep
 * their keys, `({}).polluted` stays undefined, and the arguments a tool
 * receives have an ordinary prototype.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@turnkit/agent-loop";
import { type ArgumentScenario, type RawArguments, runArgumentScenario } from "../../src/argument-scenario.js";
import { checkPrototypesUnchanged, snapshotPrototypes } from "../../src/invariants/prototypes.js";
import { checkArgumentObservation } from "../../src/observation-checks.js";

const PATHS = ["agent", "runner"] as const;

/** Runs the calls on both paths; returns, per path, each call's result as [isError, text]. */
async function resultsOnBothPaths(calls: ArgumentScenario["calls"], options: { chunkSize?: number } = {}) {
  const byPath = new Map<string, { received: unknown[]; results: [boolean, string][] }>();
  for (const path of PATHS) {
    const scenario: ArgumentScenario = { path, calls, ...options };
    const before = snapshotPrototypes();
    const observation = await runArgumentScenario(scenario);
    checkArgumentObservation(scenario, observation, before);
    const transcript: AgentMessage[] =
      observation.path === "agent"
        ? observation.run.transcript
        : observation.run.offered.flatMap(({ change }) => change.messages);
    const results = observation.callIds.map((id): [boolean, string] => {
      const result = transcript.find((message) => message.role === "toolResult" && message.toolCallId === id);
      if (result?.role !== "toolResult") throw new Error(`${path}: no result for ${id}`);
      return [result.isError, result.content.map((block) => (block.type === "text" ? block.text : "")).join("")];
    });
    byPath.set(path, { received: observation.received, results });
  }
  checkPrototypesUnchanged(snapshotPrototypes());
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  return byPath;
}

const json = (text: string): RawArguments => ({ kind: "json", text });

describe("malformed tool-call arguments", () => {
  it("invalid JSON fragments as string arguments", async () => {
    const fragments = ['{"value": ', '{"value": "unterminated', "{,}", "[1, 2", '{"__proto__": {"polluted": true'];
    const byPath = await resultsOnBothPaths(
      fragments.map((text) => ({ tool: "alpha", raw: { kind: "fragment", text } })),
    );
    for (const path of PATHS) {
      const { received, results } = byPath.get(path)!;
      expect(received).toEqual([]);
      expect(results.every(([isError]) => isError)).toBe(true);
    }
  });

  it("wrong types", async () => {
    const byPath = await resultsOnBothPaths([
      { tool: "alpha", raw: { kind: "value", value: { value: 42 } } },
      { tool: "alpha", raw: { kind: "value", value: { value: ["not", "a", "string"] } } },
      { tool: "alpha", raw: { kind: "value", value: { n: "not a number" } } },
      { tool: "alpha", raw: { kind: "value", value: [1, 2, 3] } },
      { tool: "prepared", raw: { kind: "value", value: 7 } },
    ]);
    for (const path of PATHS) {
      const { received, results } = byPath.get(path)!;
      // A number coerces to the string the schema asks for (behaviour L4); the rest cannot be made valid.
      expect(results.map(([isError]) => isError)).toEqual([false, true, true, true, true]);
      expect(received).toEqual([{ value: "42" }]);
    }
  });

  it("huge strings (1 MB)", async () => {
    const huge = "x".repeat(1_000_000);
    const byPath = await resultsOnBothPaths([{ tool: "alpha", raw: { kind: "value", value: { value: huge } } }], {
      chunkSize: 262_144,
    });
    for (const path of PATHS) {
      const { received, results } = byPath.get(path)!;
      expect(results).toEqual([[false, "ok"]]);
      expect((received[0] as { value: string }).value).toHaveLength(1_000_000);
    }
  });

  it("prototype-polluting keys: __proto__", async () => {
    const byPath = await resultsOnBothPaths([
      { tool: "alpha", raw: json('{"__proto__": {"polluted": true}, "value": "a"}') },
      { tool: "prepared", raw: json('{"__proto__": {"polluted": "yes", "value": 1}}') },
      { tool: "alpha", raw: json('{"value": "b", "nested": {"__proto__": {"polluted": 1}}}') },
    ]);
    for (const path of PATHS) {
      const { received } = byPath.get(path)!;
      for (const args of received) {
        expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
        expect((args as Record<string, unknown>).polluted).toBeUndefined();
      }
    }
  });

  it("prototype-polluting keys: constructor.prototype", async () => {
    const byPath = await resultsOnBothPaths([
      { tool: "alpha", raw: json('{"constructor": {"prototype": {"polluted": true}}, "value": "a"}') },
      { tool: "prepared", raw: json('{"constructor": {"prototype": {"polluted": "yes"}}}') },
      { tool: "alpha", raw: json('{"prototype": {"polluted": 1}, "toString": "not a function", "hasOwnProperty": 1}') },
    ]);
    for (const path of PATHS) {
      const { received } = byPath.get(path)!;
      for (const args of received) {
        expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
        expect(typeof Object.prototype.toString).toBe("function");
        expect(({} as { constructor: unknown }).constructor).toBe(Object);
      }
    }
  });
});
