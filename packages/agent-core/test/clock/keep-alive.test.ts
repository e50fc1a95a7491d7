import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Regression: a retry backoff ran on an unref'ed timer, so a CLI whose only
 * pending work was the backoff exited mid-turn with code 0. `sleep` must keep
 * the process alive; a plain watchdog timer must not.
 *
 * Each child reports its own times from the moment the timer is set, so the
 * checks hold however long the child takes to start (compiling the sources
 * with tsx is slow on a loaded machine); the child is given minutes to run.
 * It imports `clock.ts` alone, not the package, so it has little to compile.
 */
describe("systemClock timers and the process lifetime", () => {
  const CHILD_TIMEOUT_MS = 180_000;

  const run = (body: string) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body],
        {
          cwd: new URL("../..", import.meta.url),
          timeout: CHILD_TIMEOUT_MS,
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (part: string) => (stdout += part));
      child.stderr.setEncoding("utf8").on("data", (part: string) => (stderr += part));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });

  /** The child prints, at exit, how long after the timer was set it exited. */
  const exitReport = `
    const timerSetAt = performance.now();
    process.on("exit", () => console.log("exited after " + Math.round(performance.now() - timerSetAt)));
  `;
  const exitedAfter = (stdout: string) => Number(/exited after (\d+)/.exec(stdout)?.[1] ?? Number.NaN);

  it(
    "a backoff sleep keeps the process alive until it ends",
    async () => {
      const result = await run(`
      import { sleep, systemClock } from "./src/clock.ts";
      ${exitReport}
      await sleep(200, systemClock);
      console.log("slept");
    `);
      expect(result.stdout, result.stderr).toContain("slept");
      expect(result.status).toBe(0);
      // The process stayed for the whole wait.
      expect(exitedAfter(result.stdout)).toBeGreaterThanOrEqual(199);
    },
    CHILD_TIMEOUT_MS + 10_000,
  );

  it(
    "a watchdog timer does not hold the process open",
    async () => {
      const result = await run(`
      import { systemClock } from "./src/clock.ts";
      ${exitReport}
      systemClock.setTimeout(() => console.log("fired"), 60_000);
    `);
      expect(result.stdout, result.stderr).not.toContain("fired");
      expect(result.status).toBe(0);
      // It exited long before the timer was due, instead of waiting for it.
      expect(exitedAfter(result.stdout)).toBeLessThan(30_000);
    },
    CHILD_TIMEOUT_MS + 10_000,
  );
});
