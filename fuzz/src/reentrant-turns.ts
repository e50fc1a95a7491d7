/**
 * Host code that re-enters the runner from inside a turn: the event
 * writer, a hook, a tool or the runner's logger starts a second `runTurn`
 * on the same runner (with the same session and turn ids, or others;
 * awaited, or left running), or aborts the turn, at a generated moment.
 *
 * Checked after each case: every turn started settles once (none rejects),
 * each turn's events end with its one terminal status and count `seq` 1,
 * 2, 3, ... on their own, every event is valid and free of engine text, no
 * host code of a turn is called after it settled, and a re-entry that
 * aborts nothing leaves the outer turn `completed`, as without it.
 */
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, type RunTurnInput, defineRuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import { errorText } from "@turnkit/agent-loop/internal";
import { type RuntimeEvent, type TurnOutcome, validateRuntimeEvent } from "@turnkit/protocol";
import fc from "fast-check";
import { engineText } from "./invariants/no-engine-errors.js";
import { unhandledRejections } from "./unhandled-rejections.js";

/** Where the host re-enters: its writer, one of its hooks, the tool, or the runner's logger. */
export type ReentryPlace =
  | "writer"
  | "tool"
  | "historyHook"
  | "stepEndHook"
  | "beforeLlmHook"
  | "afterToolHook"
  | "logger";

/** One re-entry: at the `at`-th call of `place` (from 0), the host starts a turn or aborts. */
export interface ReentrantCase {
  place: ReentryPlace;
  at: number;
  action: "sameIds" | "otherIds" | "abort";
  /** The started turn is awaited before the host code answers. */
  awaited: boolean;
  toolMode: "parallel" | "sequential";
}

export const reentrantCaseArbitrary: fc.Arbitrary<ReentrantCase> = fc.record({
  place: fc.constantFrom<ReentryPlace>(
    "writer",
    "tool",
    "historyHook",
    "stepEndHook",
    "beforeLlmHook",
    "afterToolHook",
    "logger",
  ),
  at: fc.nat({ max: 12 }),
  action: fc.constantFrom("sameIds" as const, "otherIds" as const, "abort" as const),
  awaited: fc.boolean(),
  toolMode: fc.constantFrom("parallel" as const, "sequential" as const),
});

/** One turn of a case: what its writer received, whether it settled, and whether host code ran after. */
interface TurnRecord {
  name: string;
  events: RuntimeEvent[];
  settled: boolean;
  outcome?: TurnOutcome;
  rejected?: unknown;
  lateCalls: string[];
}

/** Runs one case and throws unless every turn kept the promises above. */
export async function checkReentrantCase(scenario: ReentrantCase): Promise<void> {
  const rejections = unhandledRejections();
  const rejectedBefore = rejections.seen.length;
  const turns: TurnRecord[] = [];
  const started: Promise<unknown>[] = [];
  const controller = new AbortController();
  const calls = new Map<ReentryPlace, number>();
  let depth = 0;
  let runner: PiTurnRunner;

  /** The host's code at `place` of the outer turn: re-enters when its count comes. */
  const reenter = (place: ReentryPlace, outer: TurnRecord): Promise<unknown> | undefined => {
    if (outer.name !== "outer" || place !== scenario.place) return undefined;
    const count = calls.get(place) ?? 0;
    calls.set(place, count + 1);
    if (count !== scenario.at) return undefined;
    if (scenario.action === "abort") {
      controller.abort();
      return undefined;
    }
    const inner = startTurn(`inner`, scenario.action === "sameIds" ? "turn-r" : "turn-r2", new AbortController());
    return scenario.awaited ? inner : undefined;
  };

  const startTurn = (name: string, turnId: string, own: AbortController): Promise<unknown> => {
    const record: TurnRecord = { name, events: [], settled: false, lateCalls: [] };
    turns.push(record);
    const late = (what: string) => {
      if (record.settled) record.lateCalls.push(what);
    };
    const model = createScriptedModel([response([toolCall("lookup", {}), toolCall("lookup", {})]), "done"]);
    const tool = defineRuntimeTool({
      name: "lookup",
      description: "Looks up",
      parameters: Type.Object({}),
      executionMode: scenario.toolMode,
      execute: async () => {
        late("tool");
        await reenter("tool", record);
        return { content: [{ type: "text", text: "found" }] };
      },
    });
    const hook = (place: ReentryPlace) => async () => {
      late(place);
      await reenter(place, record);
      return undefined;
    };
    const input: RunTurnInput = {
      sessionId: "session-r",
      turnId,
      systemPrompt: "",
      userMessage: { text: `${name} question` },
      llm: { model: model.model, streamFn: model.streamFn },
      tools: [tool],
      disableBuiltinToolFallback: true,
      signal: own.signal,
      hooks: {
        onHistoryChangedHook: hook("historyHook"),
        onStepEndHook: hook("stepEndHook"),
        beforeLlmCallHook: hook("beforeLlmHook"),
        afterToolCallHook: hook("afterToolHook"),
      },
      eventWriter: {
        push: (event) => {
          late(`writer ${event.type}`);
          record.events.push(event);
          return reenter("writer", record) as Promise<void> | undefined;
        },
      },
    };
    const run = runner.runTurn(input).then(
      (outcome) => {
        record.outcome = outcome;
        record.settled = true;
      },
      (error: unknown) => {
        record.rejected = error;
        record.settled = true;
      },
    );
    started.push(run);
    return run;
  };

  const outerRecord = (): TurnRecord | undefined => turns.find((turn) => turn.name === "outer");
  const log = () => {
    // The logger re-enters only for the outer turn, and not from inside a turn it started.
    const outer = outerRecord();
    if (!outer || outer.settled || depth > 0) return;
    depth += 1;
    try {
      void reenter("logger", outer);
    } finally {
      depth -= 1;
    }
  };
  runner = new PiTurnRunner({ logger: { debug: log, warn: log, error: log } });
  await startTurn("outer", "turn-r", controller);
  // Every turn started, also one left running, settles on its own.
  const settledAll = await Promise.race([
    Promise.all(started).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  const fail = (problem: string): never => {
    throw new Error(`${JSON.stringify(scenario)}: ${problem}`);
  };
  if (!settledAll) fail("a turn did not settle within 10 s");
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (const turn of turns) {
    if (turn.rejected !== undefined) fail(`${turn.name} rejected: ${errorText(turn.rejected)}`);
    const terminals = turn.events.filter(
      (event) => event.type === "session.status" && event.payload.status !== "running",
    );
    if (terminals.length !== 1 || turn.events.at(-1) !== terminals[0])
      fail(`${turn.name}: its terminal status is not its one last event`);
    turn.events.forEach((event, index) => {
      if (event.seq !== index + 1) fail(`${turn.name}: event ${index} has seq ${event.seq}`);
      const checked = validateRuntimeEvent(event);
      if (!checked.ok) fail(`${turn.name}: event ${index} is invalid: ${checked.errors.slice(0, 2).join("; ")}`);
    });
    const engine = engineText({ outcome: turn.outcome, events: turn.events });
    if (engine) fail(`${turn.name} carries the engine's text: ${engine}`);
    if (turn.lateCalls.length > 0)
      fail(`${turn.name}: host code called after it settled: ${turn.lateCalls.join(", ")}`);
  }
  const outer = outerRecord()!;
  if (scenario.action !== "abort" && outer.outcome?.kind !== "completed")
    fail(`the outer turn did not complete: ${JSON.stringify(outer.outcome)}`);
  const rejected = rejections.seen.slice(rejectedBefore);
  if (rejected.length > 0) fail(`unhandled rejections: ${rejected.map(errorText).join("; ")}`);
}
