import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Regression: a retry backoff ran on an unref'ed timer, so a CLI whose only
 * pending work was the backoff exited mid-turn with code 0. `sleep` must keep
 * the process alive; a plain watchdog timer must not.
 */
describe("systemClock timers and the process lifetime", () => {
  const run = (body: string) =>
    spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body], {
      cwd: new URL("../..", import.meta.url),
      encoding: "utf8",
      timeout: 30_000,
    });

  it("a backoff sleep keeps the process alive until it ends", () => {
    const result = run(`
      import { sleep, systemClock } from "@turnkit/agent-core";
      await sleep(200, systemClock);
      console.log("slept");
    `);
    expect(result.stdout.trim(), result.stderr).toBe("slept");
    expect(result.status).toBe(0);
  });

  it("a watchdog timer does not hold the process open", () => {
    const started = Date.now();
    const result = run(`
      import { systemClock } from "@turnkit/agent-core";
      systemClock.setTimeout(() => console.log("fired"), 60_000);
    `);
    expect(result.stdout, result.stderr).not.toContain("fired");
    expect(result.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});
