/**
 * A watch on the fuzz run from a thread of its own: a case that never
 * yields (a loop in the library or in a generated host's code) blocks the
 * run's thread, so neither a timeout nor a log line can report it. The
 * run notes each case as it starts ({@link StallWatch.caseStarted}); when
 * no case started for `stallMs`, the watch writes which batch stalled and
 * how to replay it straight to stderr (the run's own output goes through
 * the blocked thread), and kills the process (`SIGKILL`: no handler of the
 * blocked thread could run).
 */
import { Worker } from "node:worker_threads";

/** What the run tells its watch. */
export interface StallWatch {
  /** A new batch: its description (property, seed, replay command) for the report. */
  batchStarted(description: string): void;
  /** A case started: the clock of the stall starts again. */
  caseStarted(): void;
  /** The run ended: the watch stops. */
  stop(): void;
}

const WATCHER = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { beats, stallMs } = workerData;
const beat = new Int32Array(beats);
let last = Atomics.load(beat, 0);
let since = Date.now();
setInterval(() => {
  const now = Atomics.load(beat, 0);
  if (now !== last) { last = now; since = Date.now(); return; }
  if (Date.now() - since < stallMs) return;
  const text = new TextDecoder().decode(new Uint8Array(beats, 8, Atomics.load(beat, 1))).trim();
  writeSync(2, "\\nSTALLED: no fuzz case started for " + Math.round(stallMs / 1000) + " s; the case running blocks the thread (a loop that never yields).\\n" + text + "\\n");
  process.kill(process.pid, "SIGKILL");
}, 1000);
`;

/** Starts the watch; a run that sees no new case for `stallMs` is reported and ended. */
export function startStallWatch(stallMs: number): StallWatch {
  const beats = new SharedArrayBuffer(8 + 4096);
  const beat = new Int32Array(beats);
  const text = new Uint8Array(beats, 8);
  const worker = new Worker(WATCHER, { eval: true, workerData: { beats, stallMs } });
  worker.unref();
  return {
    batchStarted(description) {
      const bytes = new TextEncoder().encode(description).subarray(0, text.length);
      text.fill(0);
      text.set(bytes);
      Atomics.store(beat, 1, bytes.length);
      Atomics.add(beat, 0, 1);
    },
    caseStarted() {
      Atomics.add(beat, 0, 1);
    },
    stop() {
      void worker.terminate();
    },
  };
}
