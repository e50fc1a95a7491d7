import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A full GC on demand, without starting the test process with --expose-gc.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

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
