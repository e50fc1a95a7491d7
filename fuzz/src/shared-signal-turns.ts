/**
 * Many turns and runs on one caller signal, as a host hands its shutdown
 * signal to everything it starts: 11 to 40 `PiTurnRunner` turns (on one to
 * three runners) and `runAgentLoop` runs at once, each answering text,
 * calling parallel or sequential tools that answer or wait for the abort
 * (up to 14 side by side on a turn's own signal), or
 * waiting on a model that never answers; the signal fires at a generated
 * event, once every unsettled run waits, before anything starts, or never.
 *
 * Checked after each case: no process warning (Node warns once more than
 * ten listeners wait on one signal), every run settles, a run that waited
 * for the abort (or was started on a fired signal) ends aborted, none
 * fails, `aborted` only when the signal fired, and once all have settled
 * the signal holds no listener.
 */
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, type RuntimeToolResult, defineRuntimeTool } from "@turnkit/agent-core";
import { runAgentLoop, type AgentTool } from "@turnkit/agent-loop";
import { errorText } from "@turnkit/agent-loop/internal";
import {
  abortListenerCount,
  createScriptedModel,
  hang,
  response,
  toolCall,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import fc from "fast-check";
import { unhandledRejections } from "./unhandled-rejections.js";

/** What one run does: answer, call tools (each answering or waiting for the abort), or wait on its model. */
export type SharedSignalRunShape =
  | { kind: "text" }
  | { kind: "tools"; mode: "parallel" | "sequential"; calls: ("answers" | "waits")[] }
  | { kind: "modelWaits" };

/** One case: the runs sharing the signal and when it fires. */
export interface SharedSignalCase {
  runs: { engine: "runner" | "loop"; runner: number; shape: SharedSignalRunShape }[];
  /** `event`: at the `at`-th event any run emits (or once every unsettled run waits, if that comes first). */
  abort: { kind: "never" } | { kind: "beforeStart" } | { kind: "event"; at: number } | { kind: "whenAllWait" };
}

/**
 * `sideBySide`: how many calls of one batch may wait on the run's signal at once. A turn's run has a
 * signal of its own, on which any number may listen; an `agentLoop` run's tools listen on the host's
 * signal itself, where more than ten listeners are the host's to allow (Turnkit's one listener beside them).
 */
const shapeArbitrary = (withWaits: boolean, sideBySide: number): fc.Arbitrary<SharedSignalRunShape> =>
  fc.oneof(
    fc.constant({ kind: "text" as const }),
    fc.record({
      kind: fc.constant("tools" as const),
      mode: fc.constantFrom("parallel" as const, "sequential" as const),
      calls: withWaits
        ? fc.oneof(
            fc.array(fc.constantFrom("answers" as const, "waits" as const), { minLength: 1, maxLength: sideBySide }),
            fc.array(fc.constant("waits" as const), { minLength: sideBySide, maxLength: sideBySide }),
          )
        : fc.array(fc.constant("answers" as const), { minLength: 1, maxLength: 14 }),
    }),
    ...(withWaits ? [fc.constant({ kind: "modelWaits" as const })] : []),
  );

const casesWith = (abort: fc.Arbitrary<SharedSignalCase["abort"]>, withWaits: boolean) =>
  fc.record({
    runs: fc.array(
      fc.constantFrom("runner" as const, "runner" as const, "loop" as const).chain((engine) =>
        fc.record({
          engine: fc.constant(engine),
          runner: fc.nat({ max: 2 }),
          shape: shapeArbitrary(withWaits, engine === "runner" ? 14 : 9),
        }),
      ),
      { minLength: 11, maxLength: 40 },
    ),
    abort,
  });

export const sharedSignalCaseArbitrary: fc.Arbitrary<SharedSignalCase> = fc.oneof(
  casesWith(fc.constant({ kind: "never" as const }), false),
  casesWith(fc.constant({ kind: "beforeStart" as const }), true),
  casesWith(fc.record({ kind: fc.constant("event" as const), at: fc.nat({ max: 400 }) }), true),
  casesWith(fc.constant({ kind: "whenAllWait" as const }), true),
);

/** A run as the check sees it. */
interface RunRecord {
  settled: boolean;
  waiting: boolean;
  /** `aborted`, `completed` or `failed` (a turn's outcome, or how a loop run's last message ended). */
  ending?: string;
  /** Whether it was still running when the signal fired. */
  runningAtAbort?: boolean;
  rejected?: unknown;
}

/** Runs one case and throws unless every promise above was kept. */
export async function checkSharedSignalCase(scenario: SharedSignalCase): Promise<void> {
  const rejections = unhandledRejections();
  const rejectedBefore = rejections.seen.length;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    await runCase(scenario, warnings);
    const rejected = rejections.seen.slice(rejectedBefore);
    if (rejected.length > 0) throw new Error(`unhandled rejections: ${rejected.map(errorText).join("; ")}`);
  } finally {
    process.off("warning", onWarning);
  }
}

async function runCase(scenario: SharedSignalCase, warnings: string[]): Promise<void> {
  const controller = new AbortController();
  const { signal } = controller;
  // A loop run hands its tools the caller's signal itself: the host's own tools wait on one listener of the host's.
  let hostHeard!: () => void;
  const hostSeesAbort = new Promise<void>((resolve) => (hostHeard = resolve));
  signal.addEventListener("abort", hostHeard, { once: true });
  const records: RunRecord[] = scenario.runs.map(() => ({ settled: false, waiting: false }));
  let events = 0;
  const abort = () => {
    if (signal.aborted) return;
    for (const record of records) record.runningAtAbort = !record.settled;
    controller.abort();
  };
  const abortWhenDue = () => {
    const { abort: when } = scenario;
    if (when.kind === "never" || when.kind === "beforeStart") return;
    if (when.kind === "event" && events >= when.at) return abort();
    if (records.every((record) => record.settled || record.waiting)) abort();
  };
  const noteEvent = () => {
    events += 1;
    abortWhenDue();
  };
  const startWaiting = (record: RunRecord) => {
    record.waiting = true;
    // Checked after the current step, so a run's own abort never lands inside the call that started waiting.
    queueMicrotask(abortWhenDue);
  };
  if (scenario.abort.kind === "beforeStart") abort();

  const runners = [0, 1, 2].map(() => new PiTurnRunner());
  const started = scenario.runs.map((run, index) => {
    const record = records[index]!;
    const script = scriptOf(run.shape, record, startWaiting, hostSeesAbort);
    const work =
      run.engine === "runner"
        ? runners[run.runner]!.runTurn({
            sessionId: `session-${index}`,
            turnId: `turn-${index}`,
            systemPrompt: "",
            userMessage: { text: "go" },
            llm: { model: script.model.model, streamFn: script.model.streamFn },
            llmRetry: false,
            tools: script.runtimeTools,
            disableBuiltinToolFallback: true,
            eventWriter: { push: noteEvent },
            signal,
          }).then((outcome) => outcome.kind)
        : runAgentLoop(
            [{ role: "user", content: "go", timestamp: 1 }],
            { systemPrompt: "", messages: [], tools: script.loopTools },
            { model: script.model.model, convertToLlm: (all) => all as never },
            noteEvent,
            signal,
            script.model.streamFn,
          ).then((messages) => loopEnding(messages.at(-1)));
    return work.then(
      (ending) => {
        record.ending = ending;
        record.settled = true;
        abortWhenDue();
      },
      (error: unknown) => {
        record.rejected = error;
        record.settled = true;
      },
    );
  });

  const fail = (problem: string): never => {
    throw new Error(`${summary(scenario)}: ${problem}`);
  };
  const settledAll = await Promise.race([
    Promise.all(started).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  if (!settledAll) {
    const open = records.flatMap((record, index) => (record.settled ? [] : [index]));
    fail(`runs ${open.join(", ")} did not settle within 10 s`);
  }
  await new Promise((resolve) => setImmediate(resolve));
  if (warnings.length > 0) fail(`process warnings: ${warnings.join("; ")}`);
  records.forEach((record, index) => {
    const name = `run ${index} (${scenario.runs[index]!.engine}, ${scenario.runs[index]!.shape.kind})`;
    if (record.rejected !== undefined) fail(`${name} rejected: ${errorText(record.rejected)}`);
    if (record.ending === "failed") fail(`${name} failed`);
    if (record.ending === "aborted" && !signal.aborted) fail(`${name} ended aborted, yet the signal never fired`);
    const mustAbort = scenario.abort.kind === "beforeStart" || (record.waiting && record.runningAtAbort === true);
    if (mustAbort && record.ending !== "aborted") fail(`${name} was aborted, yet ended ${record.ending}`);
  });
  signal.removeEventListener("abort", hostHeard);
  const left = abortListenerCount(signal);
  if (left > 0) fail(`${left} listener(s) left on the shared signal once every run settled`);
}

/** The scripted model and tools of one run. */
function scriptOf(
  shape: SharedSignalRunShape,
  record: RunRecord,
  startWaiting: (record: RunRecord) => void,
  hostSeesAbort: Promise<void>,
): {
  model: ReturnType<typeof createScriptedModel>;
  runtimeTools: ReturnType<typeof sharedTools>;
  loopTools: AgentTool[];
} {
  const tools = sharedTools(record, startWaiting);
  const loopTools = loopToolsOf(record, startWaiting, hostSeesAbort);
  switch (shape.kind) {
    case "text":
      return { model: createScriptedModel(["done"]), runtimeTools: tools, loopTools };
    case "modelWaits": {
      const waits: ScriptEntry = () => {
        startWaiting(record);
        return hang({ afterEvents: 1, response: response("never ends") });
      };
      return { model: createScriptedModel([waits]), runtimeTools: tools, loopTools };
    }
    case "tools": {
      const name = (call: "answers" | "waits") => `${call}_${shape.mode}`;
      const calls = shape.calls.map((call, index) => toolCall(name(call), {}, { id: `call_${index}` }));
      return { model: createScriptedModel([response(calls), "done"]), runtimeTools: tools, loopTools };
    }
    default: {
      const unknown: never = shape;
      throw new Error(`unknown run shape ${JSON.stringify(unknown)}`);
    }
  }
}

/** Resolves with `answer` once `signal` fires (at once when it has). */
function untilAborted<T>(signal: AbortSignal, answer: T): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(answer);
    else signal.addEventListener("abort", () => resolve(answer), { once: true });
  });
}

const TEXT = (text: string) => ({ content: [{ type: "text" as const, text }] });

function sharedTools(record: RunRecord, startWaiting: (record: RunRecord) => void) {
  return (["parallel", "sequential"] as const).flatMap((mode) => [
    defineRuntimeTool({
      name: `answers_${mode}`,
      description: "Answers at once.",
      parameters: Type.Object({}),
      executionMode: mode,
      execute: async (): Promise<RuntimeToolResult> => TEXT("answered"),
    }),
    defineRuntimeTool({
      name: `waits_${mode}`,
      description: "Waits for the abort.",
      parameters: Type.Object({}),
      executionMode: mode,
      execute: (_ctx, _input, signal): Promise<RuntimeToolResult> => {
        startWaiting(record);
        return untilAborted(signal, TEXT("stopped"));
      },
    }),
  ]);
}

function loopToolsOf(
  record: RunRecord,
  startWaiting: (record: RunRecord) => void,
  hostSeesAbort: Promise<void>,
): AgentTool[] {
  return (["parallel", "sequential"] as const).flatMap((mode) => [
    {
      name: `answers_${mode}`,
      label: "answers",
      description: "Answers at once.",
      parameters: Type.Object({}),
      executionMode: mode,
      execute: async () => ({ ...TEXT("answered"), details: {} }),
    },
    {
      name: `waits_${mode}`,
      label: "waits",
      description: "Waits for the abort.",
      parameters: Type.Object({}),
      executionMode: mode,
      execute: async () => {
        startWaiting(record);
        await hostSeesAbort;
        return { ...TEXT("stopped"), details: {} };
      },
    },
  ]);
}

/**
 * How a loop run ended, read from its last message: `aborted` (an aborted
 * response, or a tool result: the run stopped after its tool batch instead
 * of asking the model again), `failed` (an error) or `completed`.
 */
function loopEnding(last: unknown): string {
  const { role, stopReason } = (last ?? {}) as { role?: unknown; stopReason?: unknown };
  if (stopReason === "aborted" || role === "toolResult") return "aborted";
  if (stopReason === "error") return "failed";
  return "completed";
}

function summary(scenario: SharedSignalCase): string {
  const shapes = scenario.runs.map((run) =>
    run.shape.kind === "tools"
      ? `${run.engine}:${run.shape.mode}[${run.shape.calls.join(",")}]`
      : `${run.engine}:${run.shape.kind}`,
  );
  return `${JSON.stringify(scenario.abort)} ${shapes.join(" ")}`;
}
