/**
 * Once `runTurn` has settled, nothing of the turn runs: no hook, no host
 * callback, no history change, no event. A hook chain given up on after the
 * abort stops where it was: later members are not called, even when the
 * slow member finally answers.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";
import { createRecordingEventWriter, createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText } from "../support/turn-queries.js";

/** Answers after `ms` of real time, whatever the signal says (a host that ignores the abort). */
const late = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/**
 * When a slow host answers: well after the abort grace (250 ms), so a loaded
 * machine that starts the grace late still gives up on the host first.
 */
const SLOW_ANSWER_MS = 600;
/** Real time after the turn settled in which a late answer would have shown: longer than the slow answer takes from the abort. */
const AFTER_SETTLE_MS = SLOW_ANSWER_MS + 200;

/** Runs a turn that the caller aborts as soon as `abortWhen` is called, and records what happens after it settled. */
async function abortedTurn(
  input: (abort: () => void, afterSettle: (what: string) => void) => Partial<RunTurnInput>,
  script = [response([toolCall("work", { value: "1" })]), "never"],
) {
  const controller = new AbortController();
  let settled = false;
  const afterSettle: string[] = [];
  const note = (what: string) => {
    if (settled) afterSettle.push(what);
  };
  const writer = createRecordingEventWriter({ onEvent: (event) => note(`event ${event.type}`) });
  const turn = await runCheckedTurn({
    writer,
    script,
    input: {
      signal: controller.signal,
      tools: [createRecordingTool("work", { executionMode: "parallel" })],
      ...input(() => controller.abort(), note),
    },
  });
  settled = true;
  const eventsAtSettle = turn.events.length;
  await late(AFTER_SETTLE_MS);
  return { turn, afterSettle, eventsAfter: turn.events.length - eventsAtSettle };
}

// The tests wait in real time (the abort grace and the host's late answer run on real timers) and share nothing:
// they run at once, so the file takes about one test's second, not five.
describe.concurrent("nothing of a turn runs after runTurn settled", () => {
  it("onHistoryChangedHook [slow, store]: the store never receives a message after the turn resolved", async () => {
    const stored: string[] = [];
    const { turn, afterSettle, eventsAfter } = await abortedTurn((abort, note) => ({
      hooks: {
        onHistoryChangedHook: [
          async (change) => {
            if (change.reason === "messageDelta" && change.messages.some((message) => message.role === "assistant")) {
              abort();
              await late(SLOW_ANSWER_MS);
            }
          },
          (change) => {
            note("store");
            if (change.reason === "messageDelta") stored.push(...change.messages.map((message) => message.role));
          },
        ],
      },
    }));
    expect(turn.outcome.kind).toBe("aborted");
    expect(afterSettle).toEqual([]);
    expect(eventsAfter).toBe(0);
    expect(stored).toEqual(["user"]);
  });

  it("onStepEndHook [slow, second]: the second hook is never called with a stale step index after the turn resolved", async () => {
    const seen: number[] = [];
    const { turn, afterSettle } = await abortedTurn((abort, note) => ({
      hooks: {
        onStepEndHook: [
          async () => {
            abort();
            await late(SLOW_ANSWER_MS);
          },
          ({ stepIndex }) => {
            note("second step-end hook");
            seen.push(stepIndex);
          },
        ],
      },
    }));
    expect(turn.outcome.kind).toBe("aborted");
    expect(afterSettle).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("afterLlmCallHook [slow, rewriter]: the rewriter never changes a message already persisted", async () => {
    const { turn, afterSettle } = await abortedTurn(
      (abort, note) => ({
        hooks: {
          afterLlmCallHook: [
            async () => {
              abort();
              await late(SLOW_ANSWER_MS);
              return undefined;
            },
            () => {
              note("rewriter");
              return { type: "replaceText", text: "rewritten after the turn" };
            },
          ],
        },
      }),
      ["the model's answer"],
    );
    expect(turn.outcome.kind).toBe("aborted");
    expect(afterSettle).toEqual([]);
    expect(turn.delivered.map(messageText).join("|")).not.toContain("rewritten");
  });

  it("getSteeringMessages and tryBeginClose are never called after the turn resolved", async () => {
    const { turn, afterSettle } = await abortedTurn((abort, note) => ({
      hooks: {
        onStepEndHook: async () => {
          abort();
          await late(SLOW_ANSWER_MS);
        },
      },
      getSteeringMessages: () => (note("getSteeringMessages"), []),
      tryBeginClose: () => (note("tryBeginClose"), true),
      shouldStopAfterTurn: () => (note("shouldStopAfterTurn"), false),
    }));
    expect(turn.outcome.kind).toBe("aborted");
    expect(afterSettle).toEqual([]);
  });

  it("a before-tool hook answering after the turn resolved starts nothing and changes nothing", async () => {
    const work = createRecordingTool("work", { executionMode: "sequential" });
    const controller = new AbortController();
    let settled = false;
    const afterSettle: string[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("work", { value: "1" })]), "never"],
      input: {
        signal: controller.signal,
        tools: [work],
        hooks: {
          beforeToolCallHook: [
            async () => {
              controller.abort();
              await late(SLOW_ANSWER_MS);
              return undefined;
            },
            () => {
              if (settled) afterSettle.push("second before-tool hook");
              return undefined;
            },
          ],
        },
      },
    });
    settled = true;
    await late(AFTER_SETTLE_MS);
    expect(turn.outcome.kind).toBe("aborted");
    expect(afterSettle).toEqual([]);
    expect(work.calls).toHaveLength(0);
  });
});
