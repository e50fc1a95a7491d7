import { KILLED_EXIT_WAIT_MS, SERVER_PROCESS_MARKER_VARIABLE, STARTED_PROCESS_POLL_MS } from "./defaults.js";
import { descendantsOf, isRunning, processesMarked } from "./process-tree.js";

/**
 * Makes sure a stdio server's process ends after its input was closed: when
 * it has not exited (`exited` settled) within `graceMs`, it gets `SIGTERM`;
 * after another `graceMs`, `SIGKILL`. Resolves once it exited, or when it
 * is still there `KILLED_EXIT_WAIT_MS` (or `graceMs`, if longer) after
 * `SIGKILL` (a process that cannot be killed is not waited for forever).
 * Never rejects.
 *
 * The processes it started and that still run when this is called (a
 * server started through `sh -c`, `npx` or `uv run` runs as a child of
 * that program, which does not pass signals on) go through the same
 * steps, at the same times, and are waited for too (see `descendantsOf`);
 * they are looked for again after each wait, and once more after the last
 * signal, so a server a wrapper starts while it is being stopped is stopped
 * too.
 * So are those, on Linux, whose environment holds `marker`, the value of
 * `SERVER_PROCESS_MARKER_VARIABLE` the process was started with: a server
 * whose wrapper was killed, exited leaving it running or started it
 * detached is no descendant of it any more (see `processesMarked`).
 * Elsewhere such a server is not found.
 *
 * The SDK's stdio transport runs the same steps two seconds apart, fixed;
 * a host (or a test) with a server that ignores `SIGTERM` would wait four
 * seconds at every shutdown, so ours (`StdioProcessTransport`) sends no
 * signal and leaves them to this. The signals go to the pid the transport
 * reported, and only while the process has not been seen to exit; to a
 * process it started, only while that one runs.
 */
export async function stopProcess(pid: number, exited: Promise<void>, graceMs: number, marker?: string): Promise<void> {
  const started = new Set<number>();
  /** Adds the processes started so far; whether one of them is new and runs. */
  const lookAgain = (): boolean => {
    let found = false;
    const marked = marker === undefined ? [] : processesMarked(SERVER_PROCESS_MARKER_VARIABLE, marker);
    for (const other of [...descendantsOf(pid), ...marked]) {
      if (other === pid || started.has(other)) continue;
      started.add(other);
      found ||= isRunning(other);
    }
    return found;
  };
  // Read first: once the server's own process ended, the processes it started are no longer known as its.
  lookAgain();
  let hasExited = false;
  const seenExiting = exited.then(() => {
    hasExited = true;
  });
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    const ended = await allEndWithin(seenExiting, [...started], graceMs);
    // Looked for again after each wait: a wrapper may start its server while it is being stopped.
    if (!lookAgain() && ended) return;
    if (!hasExited) send(pid, signal);
    for (const other of started) if (isRunning(other)) send(other, signal);
  }
  // One more look once every known process was killed: one started in the moment before is killed at once.
  for (let round = 0; round < 3 && lookAgain(); round++)
    for (const other of started) if (isRunning(other)) send(other, "SIGKILL");
  await allEndWithin(seenExiting, [...started], Math.max(graceMs, KILLED_EXIT_WAIT_MS));
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

/** Whether `exited` settles and every one of `others` has ended within `ms`. */
async function allEndWithin(exited: Promise<void>, others: readonly number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  if (!(await settlesWithin(exited, ms))) return false;
  while (others.some(isRunning)) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, STARTED_PROCESS_POLL_MS)));
  }
  return true;
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
