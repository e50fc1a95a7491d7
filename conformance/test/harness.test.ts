import { describe, expect, it } from "vitest";
import {
  assertLinesInOrder,
  defineScenario,
  describeMessage,
  diffTraces,
  DOCUMENTED_DIFFERENCES,
  expectedTrace,
  formatTraceDiff,
  normaliseEvent,
  PI,
  runScenario,
  SCENARIOS,
  SUSPECTED_BUGS,
  TIMEOUT_LINE,
  TraceAssertionError,
  TURNKIT,
} from "../src/index.js";

/** The harness itself: tables that agree with each other, a normaliser and a diff that say what they should. */

describe("scenario tables", () => {
  const allIds = [...SCENARIOS.map((scenario) => scenario.id), ...SUSPECTED_BUGS.map((bug) => bug.scenario.id)];

  it("give every scenario a unique id, a title, numbered behaviours and at least one surface", () => {
    expect(new Set(allIds).size).toBe(allIds.length);
    for (const scenario of [...SCENARIOS, ...SUSPECTED_BUGS.map((bug) => bug.scenario)]) {
      expect(scenario.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(scenario.title.length).toBeGreaterThan(0);
      expect(scenario.spec.length).toBeGreaterThan(0);
      expect(scenario.surfaces.length).toBeGreaterThan(0);
    }
  });

  it("key every documented difference by a single-surface scenario of the passing run, with a numbered behaviour, a reason and two different traces", () => {
    for (const [id, difference] of Object.entries(DOCUMENTED_DIFFERENCES)) {
      const scenario = SCENARIOS.find((candidate) => candidate.id === id);
      expect(scenario, id).toBeDefined();
      expect(scenario?.surfaces, id).toHaveLength(1);
      expect(difference.spec, id).toMatch(/^[A-Z]\d+$/);
      expect(difference.reason.length, id).toBeGreaterThan(40);
      expect(expectedTrace(difference, "pi"), id).not.toEqual(expectedTrace(difference, "turnkit"));
    }
  });

  it("keep suspected bugs out of the passing run, each with a reason", () => {
    const passing = new Set(SCENARIOS.map((scenario) => scenario.id));
    for (const bug of SUSPECTED_BUGS) {
      expect(passing.has(bug.scenario.id), bug.scenario.id).toBe(false);
      expect(bug.scenario.id in DOCUMENTED_DIFFERENCES, bug.scenario.id).toBe(false);
      expect(bug.reason.length).toBeGreaterThan(40);
    }
  });
});

describe("trace normaliser", () => {
  it("writes each role with what conformance is about and without timestamps or usage", () => {
    expect(describeMessage({ role: "user", content: "hi", timestamp: 123 })).toBe('user "hi"');
    expect(
      describeMessage({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "ok" },
          { type: "toolCall", id: "c1", name: "echo", arguments: { a: 1 } },
        ],
        api: "x",
        provider: "x",
        model: "x",
        usage: {
          input: 5,
          output: 7,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 12,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "toolUse",
        timestamp: 456,
      }),
    ).toBe('assistant(toolUse) [thinking "hmm", text "ok", c1 echo({"a":1})]');
    expect(
      describeMessage({
        role: "toolResult",
        toolCallId: "c1",
        toolName: "echo",
        content: [{ type: "text", text: "no" }],
        isError: true,
        timestamp: 1,
      }),
    ).toBe('toolResult c1 echo error [text "no"]');
    expect(describeMessage({ role: "notice", text: "ui only", timestamp: 9 })).toBe('notice {"text":"ui only"}');
  });

  it("shows a tool result's terminate flag and, on request, its details", () => {
    const event = {
      type: "tool_execution_end",
      toolCallId: "c1",
      toolName: "t",
      result: { content: [], details: { n: 1 }, terminate: true },
      isError: false,
    } as const;
    expect(normaliseEvent(event)).toBe("tool_execution_end c1 t ok [] terminate");
    expect(normaliseEvent(event, { details: true })).toBe('tool_execution_end c1 t ok [] terminate details={"n":1}');
  });
});

describe("trace diff", () => {
  it("keeps common lines and marks lines of each side", () => {
    expect(diffTraces(["a", "b", "c"], ["a", "x", "c"])).toEqual([
      { kind: "same", text: "a" },
      { kind: "right", text: "x" },
      { kind: "left", text: "b" },
      { kind: "same", text: "c" },
    ]);
  });

  it("folds long equal runs and says when traces are identical", () => {
    const left = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    const right = [...left.slice(0, 8), "changed"];
    const text = formatTraceDiff(left, right, { left: "pi", right: "turnkit" }, 1);
    expect(text).toContain("… 7 equal lines");
    expect(text).toContain("- 9");
    expect(text).toContain("+ changed");
    expect(formatTraceDiff(left, left, { left: "a", right: "b" })).toContain("identical");
  });
});

describe("trace assertions", () => {
  it("match lines in order, a trailing … matching a prefix", () => {
    assertLinesInOrder(["a 1", "b 2", "c 3"], ["a 1", "c…"]);
    expect(() => assertLinesInOrder(["a 1", "b 2"], ["b 2", "a 1"])).toThrow(TraceAssertionError);
  });
});

describe("scenario runner", () => {
  it("gives each run its own scripted model, so both sides number tool calls from call_1", async () => {
    const scenario = SCENARIOS.find((candidate) => candidate.id === "one-tool");
    if (!scenario) throw new Error("one-tool scenario missing");
    for (const impl of [PI, TURNKIT, PI]) {
      const run = await runScenario(scenario, impl, "agent");
      expect(run.trace).toContain('tool_execution_start call_1 echo {"text":"hi"}');
    }
  });

  it("records a scenario that never finishes as timed out and aborts its agent", async () => {
    const stuck = defineScenario({
      id: "stuck",
      title: "a tool that never returns",
      spec: ["L10"],
      surfaces: ["agent"],
      script: () => [],
      run: async () => new Promise<void>(() => undefined),
    });
    const run = await runScenario(stuck, TURNKIT, "agent");
    expect(run.timedOut).toBe(true);
    expect(run.trace).toContain(TIMEOUT_LINE);
  });
});
