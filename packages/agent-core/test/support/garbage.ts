import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A full GC on demand, without starting the test process with --expose-gc.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

/** Rounds of a later macrotask and a full GC {@link stillReachable} runs at most. */
const COLLECT_ROUNDS = 5;

/**
 * Runs full garbage collections in later macrotasks, so what is no longer
 * reachable is gone when it resolves: a `WeakRef` read in a job keeps its
 * target until that job ends, so collecting in the same job would not do.
 */
export async function collectGarbageLater(): Promise<void> {
  await nextMacrotask();
  collectGarbage();
  await nextMacrotask();
  collectGarbage();
}

/**
 * The targets of `refs` still reachable after rounds of a later macrotask
 * and a full GC, named by constructor (`AbortSignal`, `Object`): none once
 * a round leaves nothing, else what is left after five. A leak stays
 * through every round; an object held only by work still queued when the
 * first round ran (the last promise reactions of a run, on a loaded
 * machine) is gone by a later one.
 */
export async function stillReachable(refs: readonly WeakRef<object>[]): Promise<string[]> {
  let left: object[] = [];
  for (let round = 0; round < COLLECT_ROUNDS; round++) {
    left = [];
    await nextMacrotask();
    collectGarbage();
    await nextMacrotask();
    for (const ref of refs) {
      const target = ref.deref();
      if (target !== undefined) left.push(target);
    }
    if (left.length === 0) return [];
  }
  return left.map((target) => target.constructor?.name || "(no constructor)");
}
