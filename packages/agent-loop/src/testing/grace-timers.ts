/**
 * Counts the abort graces a run waits out. The runner and the loop give
 * host code that ignores an abort `ABORT_GRACE_MS` of real time (a real
 * timer of exactly that length); how many such waits follow one another
 * after the abort is what the code decides about its abort latency, while
 * the real time they take also depends on how loaded the machine is.
 */
import { ABORT_GRACE_MS } from "../defaults.js";
import { describeValue, isRecord } from "../message-checks.js";
import { assertArrayArgument, assertNumberArgument } from "../argument-checks.js";

/** One real timer of `ABORT_GRACE_MS`: when it was started and when it fired (never, when it was cleared first). */
export interface GraceWait {
  startedAt: number;
  firedAt: number | undefined;
}

/** The grace timers started while a {@link probeGraceTimers} probe was installed. */
export interface GraceTimerProbe {
  waits(): readonly GraceWait[];
  /** Puts the `setTimeout` it wrapped back (only if nobody replaced it since). */
  restore(): void;
}

/** Wraps `globalThis.setTimeout` to record every timer of exactly `ABORT_GRACE_MS` (code looks timers up at call time). */
export function probeGraceTimers(): GraceTimerProbe {
  const original = globalThis.setTimeout;
  const waits: GraceWait[] = [];
  const wrapped = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (ms !== ABORT_GRACE_MS) return original(fn, ms, ...args);
    const wait: GraceWait = { startedAt: performance.now(), firedAt: undefined };
    waits.push(wait);
    return original(
      (...callArgs: unknown[]) => {
        wait.firedAt = performance.now();
        fn(...callArgs);
      },
      ms,
      ...args,
    );
  }) as typeof setTimeout;
  globalThis.setTimeout = wrapped;
  return {
    waits: () => waits,
    restore: () => {
      if (globalThis.setTimeout === wrapped) globalThis.setTimeout = original;
    },
  };
}

/**
 * How many of `waits` that started at or after `from` and fired by `to`
 * ran one after another at most: the longest chain in which each wait
 * started only once the one before it had fired. Graces that overlap count
 * once; a fresh grace per hung call after the abort makes the chain grow.
 * Throws a `TypeError` naming the argument when `waits` is no array of
 * waits (objects with a numeric `startedAt`), or `from` or `to` no number.
 */
export function sequentialGraces(waits: readonly GraceWait[], from: number, to: number): number {
  assertArrayArgument(waits, "sequentialGraces", "waits", "grace waits");
  waits.forEach((wait: unknown, index) => {
    if (!isRecord(wait) || typeof wait.startedAt !== "number")
      throw new TypeError(
        `sequentialGraces: waits[${index}] must be a wait { startedAt, firedAt } as probeGraceTimers records it, got ${describeValue(wait)}`,
      );
  });
  assertNumberArgument(from, "sequentialGraces", "from");
  assertNumberArgument(to, "sequentialGraces", "to");
  const fired = waits
    .filter(
      (wait): wait is GraceWait & { firedAt: number } =>
        wait.firedAt !== undefined && wait.startedAt >= from && wait.firedAt <= to,
    )
    .sort((a, b) => a.startedAt - b.startedAt);
  const depth: number[] = [];
  let longest = 0;
  fired.forEach((wait, index) => {
    let before = 0;
    for (let earlier = 0; earlier < index; earlier++)
      if (fired[earlier]!.firedAt <= wait.startedAt) before = Math.max(before, depth[earlier]!);
    depth[index] = before + 1;
    longest = Math.max(longest, depth[index]);
  });
  return longest;
}
