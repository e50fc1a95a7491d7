/**
 * A watch on the fuzz run from a thread of its own: a case that never
 * yields (a loop in the library or in a generated host's code) blocks the
 * run's thread, so neither a timeout nor a log line can report it. The
 * run's thread ticks a shared counter every second from a timer, which
 * runs only while the thread is free; when the counter has not moved for
 * `stallMs`, the watch writes which batch was running and how to replay it
 * straight to stderr (the run's own output goes through the blocked
 * thread), and kills the process (`SIGKILL`: no handler of the blocked
 * thread could run). A case that is merely slow (waiting on timers) keeps
 * the counter moving and is never taken for a stall.
 */
import { Worker } from "node:worker_threads";

/** What the run tells its watch. */
export interface StallWatch {
  /** A new batch: its description (property, seed, replay command) for the report. */
  batchStarted(description: string): void;
  /** A case started (for the report; the thread's own ticks tell that it runs). */
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
  writeSync(2, "\\nSTALLED: the fuzz run's thread has not run for " + Math.round(stallMs / 1000) + " s; the case running blocks it (a loop that never yields).\\n" + text + "\\n");
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
  // Runs only while the thread is free: the watch's proof that the run is not blocked.
  const tick = setInterval(() => Atomics.add(beat, 0, 1), 1000);
  tick.unref();
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
      clearInterval(tick);
      void worker.terminate();
    },
  };
}
