/**
 * `seq` has no gap under an abort: every event a turn emits carries the next
 * `seq` after the one before it, from the first (`running`, seq 1) to the one
 * terminal `session.status`, which comes last; also when the turn is aborted
 * while a hook is still pending past the abort grace and the host's event
 * writer answers late, never, or fails. A host cannot tell a gap from a lost
 * event, so a number is given only to an event the writer receives.
 *
 * What a writer that did not return in time never received is announced
 * instead: one `debug.trace` (phase `events`, level `warn`) right before the
 * terminal status, with how many events were dropped and of which types.
 *
 * The abort grace is real time (250 ms): the cases run concurrently.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import {
  assertRuntimeEventSequence,
  createRecordingEventWriter,
  createRecordingTool,
  runScriptedTurn,
} from "@turnkit/agent-core/testing";
import type { PiTurnHooks } from "../../src/pi-turn-runner/turn-hooks.js";

type HookKind = keyof Required<PiTurnHooks>;

/** Every hook kind of a turn; each is reached by the script below before the turn ends. */
const HOOK_KINDS: readonly HookKind[] = [
  "beforeLlmCallHook",
  "onLlmCallPreparedHook",
  "afterLlmCallHook",
  "beforeToolCallHook",
  "onToolExecutionStartHook",
  "afterToolCallHook",
  "onHistoryChangedHook",
  "onStepEndHook",
];

/** How the writer answers once the turn was aborted (before that it answers at once). */
type WriterMode = "late" | "never" | "rejectsLate" | "throws";

/** Far longer than the wait the writer still gets once the grace is used up, far shorter than a test. */
const LATE_MS = 40;

const never = () => new Promise<never>(() => undefined);

/** The announcement of events a writer that did not return never received, if any. */
function droppedNotice(events: readonly RuntimeEvent[]) {
  return events.filter(
    (event): event is RuntimeEvent<"debug.trace"> =>
      event.type === "debug.trace" && event.payload.phase === "events" && event.payload.level === "warn",
  );
}

/**
 * Runs a turn whose first `kind` hook aborts it and then never answers,
 * with a writer that behaves as `mode` says once the turn is aborted. Returns
 * the events the writer received (checked for one terminal status, last)
 * after every late answer of the writer settled.
 */
async function abortedWhileHookPending(kind: HookKind, mode: WriterMode) {
  const controller = new AbortController();
  const late: Promise<unknown>[] = [];
  const writer = createRecordingEventWriter({
    onEvent: () => {
      if (!controller.signal.aborted) return;
      switch (mode) {
        case "late": {
          const answer = new Promise<void>((resolve) => setTimeout(resolve, LATE_MS));
          late.push(answer);
          return answer;
        }
        case "never":
          return never();
        case "rejectsLate": {
          const answer = new Promise<void>((_, reject) =>
            setTimeout(() => reject(new Error("the sink went away")), LATE_MS),
          );
          late.push(answer.catch(() => undefined));
          return answer;
        }
        case "throws":
          throw new Error("the sink is down");
      }
    },
  });
  let pending = true;
  const hook = () => {
    if (!pending) return undefined;
    pending = false;
    controller.abort();
    return never();
  };
  const turn = await runScriptedTurn({
    writer,
    script: [response([toolCall("work", { value: "a" }, { id: "call-1" })]), response("done")],
    input: {
      signal: controller.signal,
      tools: [createRecordingTool("work")],
      hooks: { [kind]: hook },
    },
  });
  const received = writer.events.length;
  await Promise.all(late);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(writer.events.length, "nothing is handed to the writer after the terminal status").toBe(received);
  assertRuntimeEventSequence(turn.events);
  return turn;
}

/** The property: seq 1, 2, 3, ... without a gap; one terminal status, last; a dropped-events notice only right before it. */
function expectGapFreeSeq(events: readonly RuntimeEvent[]) {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const notices = droppedNotice(events);
  expect(notices.length).toBeLessThanOrEqual(1);
  for (const notice of notices) {
    expect(events.indexOf(notice)).toBe(events.length - 2);
    const attrs = notice.payload.attrs as { droppedEvents: number; droppedTypes: Record<string, number> };
    expect(attrs.droppedEvents).toBeGreaterThan(0);
    expect(Object.values(attrs.droppedTypes).reduce((sum, count) => sum + count, 0)).toBe(attrs.droppedEvents);
  }
}

describe.concurrent("seq has no gap when a turn is aborted while a hook is pending", () => {
  for (const kind of HOOK_KINDS) {
    it(`${kind} pending at the abort, a writer answering late: seq 1..n, whatever was dropped announced`, async () => {
      const turn = await abortedWhileHookPending(kind, "late");
      expect(turn.outcome.kind).toBe("aborted");
      expectGapFreeSeq(turn.events);
    });
  }

  for (const mode of ["late", "never", "rejectsLate", "throws"] as const) {
    it(`onHistoryChangedHook pending past the grace, a writer that ${mode === "throws" ? "throws" : `answers ${mode}`}: seq 1..n`, async () => {
      const turn = await abortedWhileHookPending("onHistoryChangedHook", mode);
      expect(turn.outcome.kind).toBe("aborted");
      expectGapFreeSeq(turn.events);
      // The grace was used up by the hook: a writer still busy then is given up on, and what it never got is announced.
      expect(droppedNotice(turn.events).length).toBe(mode === "throws" ? 0 : 1);
    });
  }
});
