import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadEmbeddedPostgres } from "./load-embedded-postgres.js";

/** A Postgres server started by {@link startEmbeddedServer}. */
export interface EmbeddedServer {
  /** Connection string of one database of the server (as its superuser). */
  urlOf(database: string): string;
  /** Creates an empty database. */
  createDatabase(name: string): Promise<void>;
  /**
   * Stops the server (a fast shutdown: the server ends every connection)
   * and starts it again on the same data and port, as a restart of a
   * production server does.
   */
  restart(): Promise<void>;
  /**
   * Kills the server as a crash does (`SIGQUIT` to the postmaster: an
   * immediate shutdown; commits made without waiting for the disk whose
   * write-ahead log was not yet written are lost) and starts it again on the
   * same data and port, which recovers from the log.
   */
  crashAndRestart(): Promise<void>;
  /** Stops the server and deletes its data directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** How to start an embedded server. */
export interface EmbeddedServerOptions {
  /** Keep `fsync` and synchronous commit on (benchmarks); off by default (tests). */
  crashSafe?: boolean;
  /** Most connections at once; a server shared by several test files needs more than one per file. */
  maxConnections: number;
  /** More server settings (`name: value`), e.g. `wal_writer_delay`. */
  settings?: Readonly<Record<string, string>>;
  /** Receives the server's log lines. Default: dropped. */
  onLog?: (line: string) => void;
}

/** Whether process `pid` exists. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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

/**
 * Throws an error that says what to do when user `user` cannot run
 * `binary` (`--version`): a folder above it that others may not pass (a
 * project under `/root`, a temp folder made with mode 0700), or a file it
 * may not execute. As root, Postgres runs as the `postgres` user; without
 * this check `embedded-postgres` spawns its `initdb` as that user, the
 * spawn fails with `EACCES`, and the failure comes as an `error` event no
 * one listens to, which ends the process.
 */
export function ensureUserCanRun(binary: string, user: string): void {
  const id = (flag: string) => Number(spawnSync("id", [flag, user], { encoding: "utf8" }).stdout);
  const probe = spawnSync(binary, ["--version"], { uid: id("-u"), gid: id("-g"), stdio: "ignore" });
  if (probe.error === undefined && probe.status === 0) return;
  const reason = (probe.error as NodeJS.ErrnoException | undefined)?.code ?? `exit code ${probe.status}`;
  throw new Error(
    `startTestPostgres: running as root, Postgres runs as the ${user} system user, which cannot run ${binary} (${reason}): every folder above it must be one others may pass (chmod o+x), or run the tests as another user than root`,
  );
}

/** The `initdb` of the `embedded-postgres` binaries for this platform. */
async function embeddedInitdb(): Promise<string> {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const binaries = await import(pathToFileURL(fromEmbedded.resolve(`@embedded-postgres/${platform()}-${arch()}`)).href);
  return (binaries.default ?? binaries).initdb;
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
 * Starts a Postgres server from the `embedded-postgres` binaries: a fresh
 * data directory under the system temp dir, a free port on 127.0.0.1, no
 * Unix socket. Running as root (CI containers), Postgres refuses to start,
 * so the server runs as a `postgres` system user that is created when
 * missing. Rejects when the server cannot be started; whatever was created
 * by then is removed.
 */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  ensurePostgresUser();
  if (userInfo().uid === 0) ensureUserCanRun(await embeddedInitdb(), "postgres");
  const root = await mkdtemp(join(tmpdir(), "turnkit-pg-"));
  // The server may run as another user (see ensurePostgresUser): it must reach its data directory.
  await chmod(root, 0o755);
  const port = await freePort();
  const password = "turnkit";
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="];
  flags.push("-c", `max_connections=${options.maxConnections}`);
  if (!options.crashSafe) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  for (const [name, value] of Object.entries(options.settings ?? {})) flags.push("-c", `${name}=${value}`);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: join(root, "data"),
    port,
    user: "postgres",
    password,
    // Kept across a restart; `stop` deletes it.
    persistent: true,
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
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    urlOf: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    createDatabase: (name) => server.createDatabase(name),
    restart: async () => {
      await server.stop();
      await server.start();
    },
    crashAndRestart: async () => {
      // The postmaster's pid is the first line of its pid file.
      const pid = Number((await readFile(join(root, "data", "postmaster.pid"), "utf8")).split("\n")[0]);
      process.kill(pid, "SIGQUIT");
      while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
      await server.start();
    },
    stop,
  };
}
