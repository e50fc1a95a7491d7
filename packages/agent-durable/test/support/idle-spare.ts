import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/*
 * The one idle spare worker process of this test process. The files of the
 * project run one after the other in a test process (`isolate: false`
 * shares this module between them), and a spare knows nothing of any file
 * until it reads its settings on stdin: the spare one file's cluster left
 * unused starts the next file's first worker, instead of each file booting
 * one more process than it uses and killing it at its end.
 */
let idle: ChildProcess | undefined;
let exitHookInstalled = false;

/**
 * Takes the idle spare out (undefined when there is none, or it died):
 * from then on it keeps this process alive like any child, and the caller
 * owns it.
 */
export function takeIdleSpare(): ChildProcess | undefined {
  const spare = idle;
  idle = undefined;
  if (!spare || spare.exitCode !== null || spare.signalCode !== null) return undefined;
  setReferenced(spare, true);
  return spare;
}

/**
 * Starts a spare with `spawnSpare` unless one is idle already. An idle
 * spare does not keep this process alive; it is killed when this process
 * exits, and exits by itself when its stdin closes (this process killed).
 */
export function keepIdleSpare(spawnSpare: () => ChildProcess): void {
  if (idle && idle.exitCode === null && idle.signalCode === null) return;
  idle = spawnSpare();
  setReferenced(idle, false);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => idle?.kill("SIGKILL"));
  }
}

/** Whether `child` and its pipes keep this process's event loop alive. */
function setReferenced(child: ChildProcess, referenced: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as (ChildProcess | Socket | null)[]) {
    if (referenced) handle?.ref();
    else handle?.unref();
  }
}
