import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type CountRecord, readCountFile } from "./count-file.js";
import { keepIdleSpare, takeIdleSpare } from "./idle-spare.js";

/** The environment variable naming the bundled test worker (set by the global setup, see worker-bundle.ts). */
export const WORKER_BUNDLE_ENV = "TURNKIT_TEST_WORKER_BUNDLE";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** How long one worker start took, as the worker reported it. */
export interface WorkerStart {
  workerId: string;
  /** Process start to the worker code loaded (node, tsx, imports). */
  bootMs: number;
  /** `DurableTurnWorker.launch` until it takes turns. */
  launchMs: number;
}

/**
 * Worker processes of one test file, started and killed by the test, all
 * stopped by {@link stopWorkers}. After a start it keeps one spare process
 * that has already loaded the worker's code and waits for its settings, so
 * the next start (a restart after a kill, most often) only launches the
 * worker: on a loaded 2-core machine loading takes seconds. The spare is
 * the test process's (see idle-spare.ts): the next file's cluster starts
 * its first worker in the one this file left unused.
 */
export class WorkerCluster {
  private readonly workers = new Map<string, ChildProcess>();
  /** Processes a test took out of {@link workers} with {@link detach}: still stopped by {@link stopWorkers}. */
  private readonly detached: ChildProcess[] = [];
  /** Everything the workers printed, for a failing test's message. */
  readonly output: string[] = [];
  /** Every worker start so far, in the order they became ready. */
  readonly starts: WorkerStart[] = [];
  /**
   * The worker processes that ended on their own with an error (an exit
   * code other than 0: an uncaught exception, an unhandled `error` event),
   * each as `<worker id> exited with code <n>`; a kill, a test-only crash
   * point or a shutdown is none.
   */
  readonly crashes: string[] = [];

  constructor(
    private readonly databaseUrl: string,
    readonly countFile: string,
  ) {}

  /** Starts worker `workerId` (in the spare process when there is one); resolves once it takes turns. */
  async start(workerId: string, env: Record<string, string> = {}): Promise<void> {
    const settings = { DATABASE_URL: this.databaseUrl, WORKER_ID: workerId, COUNT_FILE: this.countFile, ...env };
    const spare = takeIdleSpare();
    const child = spare ?? spawnWorker(settings);
    if (spare) spare.stdin!.write(`${JSON.stringify(settings)}\n`);
    child.once("exit", (code) => {
      if (code !== null && code !== 0) this.crashes.push(`${workerId} exited with code ${code}`);
    });
    this.workers.set(workerId, child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${workerId} was not ready within 60 s:\n${this.output.join("")}`)),
        60_000,
      );
      child.once("exit", () => clearTimeout(timer));
      const onData = (chunk: Buffer) => {
        this.output.push(`[${workerId}] ${chunk}`);
        const ready = /ready boot=(\d+) launch=(\d+)/.exec(String(chunk));
        if (ready) {
          this.starts.push({ workerId, bootMs: Number(ready[1]), launchMs: Number(ready[2]) });
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", (chunk: Buffer) => this.output.push(`[${workerId} err] ${chunk}`));
      child.once("exit", (code) =>
        reject(new Error(`worker ${workerId} exited (${code}) before it was ready:\n${this.output.join("")}`)),
      );
    });
    keepIdleSpare(() => spawnWorker({ WORKER_SPARE: "1" }));
  }

  /** Kills worker `workerId` with SIGKILL (no cleanup of any kind) and waits until it is gone. */
  async kill(workerId: string): Promise<void> {
    const child = this.workers.get(workerId);
    this.workers.delete(workerId);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  /** Shuts worker `workerId` down cleanly (SIGTERM: `shutdown()`) and waits until its process is gone. */
  async terminate(workerId: string): Promise<void> {
    const child = this.workers.get(workerId);
    this.workers.delete(workerId);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  /** The ids of the workers running now, in start order. */
  running(): string[] {
    return [...this.workers.entries()]
      .filter(([, child]) => child.exitCode === null && child.signalCode === null)
      .map(([workerId]) => workerId);
  }

  /** Pauses worker `workerId` with SIGSTOP (it stalls, as under a long GC pause or a frozen VM, without dying). */
  pause(workerId: string): void {
    this.workers.get(workerId)?.kill("SIGSTOP");
  }

  /** Lets a paused worker go on (SIGCONT). */
  resume(workerId: string): void {
    this.workers.get(workerId)?.kill("SIGCONT");
  }

  /**
   * Takes worker `workerId`'s process out of the cluster's workers without
   * stopping it (so a new process may start under the same id while the old
   * one lives on, paused or not); {@link stopWorkers} still stops it.
   */
  detach(workerId: string): ChildProcess {
    const child = this.workers.get(workerId);
    if (!child) throw new Error(`no worker ${workerId}`);
    this.workers.delete(workerId);
    this.detached.push(child);
    return child;
  }

  /** Resolves once worker `workerId` exited by itself (a test-only crash point); its exit signal. */
  async exited(workerId: string): Promise<NodeJS.Signals | null> {
    const child = this.workers.get(workerId);
    if (!child) throw new Error(`no worker ${workerId}`);
    if (child.exitCode === null && child.signalCode === null)
      await new Promise((resolve) => child.once("exit", resolve));
    this.workers.delete(workerId);
    return child.signalCode;
  }

  /**
   * Stops every worker still running (SIGTERM, then SIGKILL after 5 s),
   * detached ones with SIGKILL; the idle spare stays for the next start,
   * of this cluster or the next file's, which then only launches a worker.
   */
  async stopWorkers(): Promise<void> {
    for (const child of this.detached) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(
      [...this.workers.entries()].map(async ([workerId, child]) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGCONT");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
        this.workers.delete(workerId);
      }),
    );
  }

  /** What the workers recorded so far (model requests, tool starts and ends). */
  counts(): CountRecord[] {
    return readCountFile(this.countFile);
  }
}

/** A worker process with `env` added to this process's environment. */
function spawnWorker(env: Record<string, string>): ChildProcess {
  // The bundle of the global setup when there is one (a run of the whole project), else the sources through tsx.
  const bundle = process.env[WORKER_BUNDLE_ENV];
  const args = bundle ? [bundle] : ["--import", "tsx", "--conditions=source", WORKER_SCRIPT];
  return spawn(process.execPath, args, {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    // stdin stays open while this process lives: the worker exits when it closes.
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Polls `condition` every 50 ms until it holds; rejects naming `label` after `timeoutMs`. */
export async function waitFor(
  label: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
