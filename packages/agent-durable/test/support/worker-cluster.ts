import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CountRecord } from "./scenario-turns.js";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Worker processes of one test file, started and killed by the test, all stopped by {@link stopAll}. */
export class WorkerCluster {
  private readonly workers = new Map<string, ChildProcess>();
  /** Everything the workers printed, for a failing test's message. */
  readonly output: string[] = [];

  constructor(
    private readonly databaseUrl: string,
    readonly countFile: string,
  ) {}

  /** Starts worker `workerId`; resolves once it takes turns. */
  async start(workerId: string, env: Record<string, string> = {}): Promise<void> {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", WORKER_SCRIPT], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, DATABASE_URL: this.databaseUrl, WORKER_ID: workerId, COUNT_FILE: this.countFile, ...env },
      // stdin stays open while this process lives: the worker exits when it closes.
      stdio: ["pipe", "pipe", "pipe"],
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
        if (String(chunk).includes("ready")) {
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
  }

  /** Kills worker `workerId` with SIGKILL (no cleanup of any kind) and waits until it is gone. */
  async kill(workerId: string): Promise<void> {
    const child = this.workers.get(workerId);
    this.workers.delete(workerId);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  /** Stops every worker still running (SIGTERM, then SIGKILL after 5 s). */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.workers.entries()].map(async ([workerId, child]) => {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
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
    let text = "";
    try {
      text = readFileSync(this.countFile, "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as CountRecord);
  }
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
