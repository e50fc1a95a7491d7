/**
 * Many turns on one caller signal (a host's shutdown signal handed to every
 * turn): Node warns once more than ten listeners wait on one `AbortSignal`,
 * so a turn must not add a listener of its own to the caller's signal. The
 * turns share one, which leaves with the last of them.
 */
import { Type } from "@sinclair/typebox";
import { abortListenerCount, createScriptedModel, hang, response, text, toolCall } from "@turnkit/agent-loop/testing";
import type { TurnOutcome } from "@turnkit/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PiTurnRunner, type RunTurnInput, type RuntimeToolResult, defineRuntimeTool } from "../../src/index.js";

const TURNS = 50;

let warnings: string[];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** Process warnings are emitted in a later tick: wait for them to arrive. */
const warningsSoFar = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return warnings;
};

/** A tool that waits for its call's signal, then answers. */
const waitForAbort = defineRuntimeTool({
  name: "wait_for_abort",
  description: "Waits until the turn is aborted.",
  parameters: Type.Object({}),
  executionMode: "parallel",
  execute: (_ctx, _input, signal) =>
    new Promise<RuntimeToolResult>((resolve) => {
      const stop = () => resolve({ content: [{ type: "text", text: "stopped" }] });
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    }),
});

function turnInput(
  index: number,
  signal: AbortSignal,
  script: Parameters<typeof createScriptedModel>[0],
): RunTurnInput {
  const model = createScriptedModel(script);
  return {
    sessionId: `session-${index}`,
    turnId: `turn-${index}`,
    systemPrompt: "test",
    userMessage: { text: "go" },
    llm: { model: model.model, streamFn: model.streamFn },
    llmRetry: false,
    tools: [waitForAbort],
    disableBuiltinToolFallback: true,
    eventWriter: { push() {} },
    signal,
  };
}

describe("many turns on one caller signal", () => {
  it("50 turns waiting on the model: no process warning, the abort ends each as aborted, nothing left on the signal", async () => {
    const controller = new AbortController();
    const runner = new PiTurnRunner();
    let requests = 0;
    const turns: Promise<TurnOutcome>[] = [];
    for (let index = 0; index < TURNS; index++) {
      const script = [() => (requests++, hang({ afterEvents: 1, response: response([text("never ends")]) }))];
      turns.push(runner.runTurn(turnInput(index, controller.signal, script)));
    }
    while (requests < TURNS) await new Promise((resolve) => setImmediate(resolve));
    expect(abortListenerCount(controller.signal)).toBeLessThanOrEqual(1);

    controller.abort();
    const outcomes = await Promise.all(turns);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(TURNS).fill("aborted"));
    expect(await warningsSoFar()).toEqual([]);
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it("50 turns with parallel tools waiting on their signals, aborted mid-batch: each aborted, no warning", async () => {
    const controller = new AbortController();
    const runner = new PiTurnRunner();
    let started = 0;
    // A batch's calls share their turn's signal (as in pi): eight of the host's own listeners on it, Turnkit's one beside them.
    const calls = Array.from({ length: 8 }, (_, call) => toolCall("wait_for_abort", {}, { id: `c${call}` }));
    const turns = Array.from({ length: TURNS }, (_, index) =>
      runner.runTurn(turnInput(index, controller.signal, [() => (started++, response(calls)), "never"])),
    );
    while (started < TURNS) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const outcomes = await Promise.all(turns);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(TURNS).fill("aborted"));
    expect(await warningsSoFar()).toEqual([]);
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it("50 turns that complete: no warning, and the signal holds nothing of an ended turn", async () => {
    const controller = new AbortController();
    const runner = new PiTurnRunner();
    const turns = Array.from({ length: TURNS }, (_, index) =>
      runner.runTurn(turnInput(index, controller.signal, ["done"])),
    );
    // While they run, the signal holds one listener of theirs, however many they are.
    expect(abortListenerCount(controller.signal)).toBe(1);
    const outcomes = await Promise.all(turns);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(TURNS).fill("completed"));
    expect(await warningsSoFar()).toEqual([]);
    // An AbortSignal reaches host objects only through its listeners: none is left, so nothing of the turns is held.
    expect(abortListenerCount(controller.signal)).toBe(0);
    expect(controller.signal.aborted).toBe(false);
  });
});
