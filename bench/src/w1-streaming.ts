import { runContender, type ContenderId } from "./contenders.js";
import { runW0Floor } from "./w0-floor.js";
import { assertCompleteRun } from "./run-check.js";
import { scriptedStreamFn, type ChunkObserver } from "./scripted-stream.js";
import { W1_DELTA, W1_DELTA_COUNT, w1Response } from "./w1-streaming-script.js";
import type { TimedWorkload } from "./workload.js";

const EXPECTED = { messageCount: 2, finalTextLength: W1_DELTA_COUNT * W1_DELTA.length };

/** One W1 run of an agent contender; `onChunk` lets W3 sample the heap between stream chunks. */
export function runW1(contender: Exclude<ContenderId, "floor">, onChunk?: ChunkObserver, verify = false) {
  return runContender(contender, { prompt: "stream", streamFn: scriptedStreamFn([w1Response()], onChunk) }, verify);
}

/**
 * W1 streaming: one response of 200,000 small text deltas and one no-op
 * subscriber (the runner: an event writer that does nothing). Measures the
 * per-delta cost of the loop, the Agent and, for the runner, the stream
 * wrappers and the event bridge. The floor of this stream is W0.
 */
export const W1: TimedWorkload = {
  id: "W1",
  description: `one response of ${W1_DELTA_COUNT.toLocaleString("en")} text deltas, one no-op subscriber`,
  contenders: ["floor", "pi", "ours", "runner", "runner-no-retry"],
  plan: { warmup: 2, rounds: 7 },
  prepare: () => void w1Response(),
  async verify(contender) {
    if (contender === "floor") {
      const events = await runW0Floor();
      if (events !== W1_DELTA_COUNT + 4) throw new Error(`W0 floor: ${events} events, expected ${W1_DELTA_COUNT + 4}`);
      return;
    }
    assertCompleteRun("W1", contender, await runW1(contender, undefined, true), EXPECTED);
  },
  run: (contender) => (contender === "floor" ? runW0Floor() : runW1(contender)),
  rowId: (contender) => (contender === "floor" ? "W0" : "W1"),
};

/**
 * W1R, the runner breakdown (not in the default suite: `--only W1R`): W1
 * for pi's Agent, our Agent and the runner with one layer after another
 * switched off (uuid ids, stream watchdogs, retry), so the difference
 * between two rows is what that layer costs per streamed delta.
 */
export const W1R: TimedWorkload = {
  ...W1,
  id: "W1R",
  description: "W1 for the runner with its layers switched off one by one",
  contenders: [
    "pi",
    "ours",
    "runner",
    "runner-counter-ids",
    "runner-counter-ids-no-timeouts",
    "runner-counter-ids-no-timeouts-no-retry",
  ],
  plan: { warmup: 2, rounds: 6 },
  rowId: () => "W1R",
};
