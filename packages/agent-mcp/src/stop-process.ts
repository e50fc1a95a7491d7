import { KILLED_EXIT_WAIT_MS } from "./defaults.js";

/**
 * Makes sure a stdio server's process ends after its input was closed: when
 * it has not exited (`exited` settled) within `graceMs`, it gets `SIGTERM`;
 * after another `graceMs`, `SIGKILL`. Resolves once it exited, or when it
 * is still there `KILLED_EXIT_WAIT_MS` (or `graceMs`, if longer) after
 * `SIGKILL` (a process that cannot be killed is not waited for forever).
 * Never rejects.
 *
 * The SDK's stdio transport runs the same steps two seconds apart, fixed;
 * a host (or a test) with a server that ignores `SIGTERM` would wait four
 * seconds at every shutdown, so ours (`StdioProcessTransport`) sends no
 * signal and leaves them to this. The signals go to the pid the transport
 * reported, and only while the process has not been seen to exit.
 */
export async function stopProcess(pid: number, exited: Promise<void>, graceMs: number): Promise<void> {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (await settlesWithin(exited, graceMs)) return;
    try {
      process.kill(pid, signal);
    } catch {
      return; // already gone
    }
  }
  await settlesWithin(exited, Math.max(graceMs, KILLED_EXIT_WAIT_MS));
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
