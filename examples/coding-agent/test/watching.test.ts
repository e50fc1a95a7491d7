/**
 * The example shows what a turn cost and where its time went from the
 * turn's own events, shows warnings as they come, stops a turn at
 * `--max-steps`, and prints the turn's OpenTelemetry spans with `--trace`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCliOptions } from "../src/cli-options.js";
import { createTempRoot, runScripted, type ScriptedRun } from "./support/scripted-run.js";

describe("watching a turn in the coding agent", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  let limited: ScriptedRun;
  let traced: ScriptedRun;

  beforeAll(async () => {
    root = await createTempRoot();
    limited = await runScripted(root.dir, { cli: { maxSteps: 2 } });
    traced = await runScripted(root.dir, { cli: { trace: true } });
  }, 60_000);
  afterAll(() => root.cleanUp());

  it("--max-steps ends the turn after that many model requests: budget_exceeded, every tool call answered, exit code 1", () => {
    expect(limited.result.exitCode).toBe(1);
    expect(limited.output).toContain(
      "  ✗ turn failed (budget_exceeded): The turn reached its step limit (maxSteps 2) after 2 model requests; it ended without another request\n",
    );
    const terminal = limited.events.at(-1)!;
    expect(
      terminal.type === "session.status" && terminal.payload.status === "failed" && terminal.payload.error.budget,
    ).toEqual({
      limit: "maxSteps",
      max: 2,
      measured: 2,
    });
    // The summary comes from the terminal status: two steps, the tokens of both.
    expect(limited.output).toMatch(/── 2 steps · \d+ tool calls · [\d,]+ tokens in \/ \d+ out · [\d.]+ (ms|s)\n/);
  });

  it("shows the retry wait from its runtime.warning, as it comes", () => {
    const warning = traced.events.findIndex((event) => event.type === "runtime.warning");
    expect(traced.events[warning]).toMatchObject({
      payload: { code: "retry_wait", message: "rate limited, retrying in 0.1 s" },
    });
    expect(traced.output).toContain("  ⟳ rate limited, retrying in 0.1 s\n");
  });

  it("--trace prints the turn's span tree when the turn ends: the turn, each model request, each tool call", () => {
    const tree = traced.output.split("\n").filter((line) => /^ {2,}(invoke_agent|chat|execute_tool)/.test(line));
    expect(tree.map((line) => line.replace(/ · [\d.]+–[\d.]+ s/, "").replace(/ · [\d,]+ in \/ \d+ out/, ""))).toEqual([
      "  invoke_agent",
      "    chat scripted-model",
      "    execute_tool get_issue",
      "    execute_tool read",
      "    execute_tool read",
      "    chat scripted-model · 2 attempts",
      "    execute_tool explore",
      // The explore sub-agent's turn, under its call.
      "      invoke_agent",
      "        chat scripted-explorer",
      "        execute_tool grep",
      "        chat scripted-explorer",
      "    chat scripted-model",
      "    execute_tool edit",
      "    chat scripted-model",
      "    execute_tool bash",
      "    chat scripted-summariser", // the compaction's summary request, a request of the turn like the others
      "    chat scripted-model · 2 attempts", // the report: the first model's quota ran out, the backup answered
    ]);
  });

  it("parses --max-steps, --max-cost and --trace, refusing values that are no limit", () => {
    expect(parseCliOptions(["--max-steps", "3", "--max-cost", "0.25", "--trace"])).toEqual({
      yes: false,
      help: false,
      maxSteps: 3,
      maxCost: 0.25,
      trace: true,
    });
    expect(() => parseCliOptions(["--max-steps", "0"])).toThrow(
      /--max-steps expects a whole number of model requests >= 1, got "0"/,
    );
    expect(() => parseCliOptions(["--max-cost", "free"])).toThrow(
      /--max-cost expects an amount in dollars > 0, got "free"/,
    );
  });
});
