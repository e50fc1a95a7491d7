import { type ChildProcess, spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { DurableTurnClient } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import { DEFAULT_KEEP_ALIVE_MS } from "@turnkit/ui-stream";
import { type Authenticate, bearerTokens, demoTokens } from "./auth.js";
import { createRoutes, type WorkerInfo } from "./http-routes.js";
import { SessionStore } from "./session-store.js";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker.ts", import.meta.url));
const EXAMPLE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Options of {@link startDurableServer}. */
export interface DurableServerOptions {
  /** HTTP port on 127.0.0.1; 0 picks a free one. Default 8787. */
  port?: number;
  /** Worker processes to start. Default 2. */
  workers?: number;
  /** A worker silent this long is presumed dead and its turns move to another. Default 3000 ms. */
  leaseMs?: number;
  /** Extra environment for the workers (e.g. `DEMO_DELAY_MS`). */
  workerEnv?: Record<string, string>;
  /**
   * Who is asking, from a request's headers (see {@link Authenticate}).
   * Default: bearer tokens made at start for the `users`, reported in
   * `tokens` (the local demo's login).
   */
  authenticate?: Authenticate;
  /** The demo users that get a token when `authenticate` is not given. Default `["alice", "bob"]`. */
  users?: string[];
  /** Largest request body in bytes; a larger one is refused (413). Default 64 KiB. */
  maxBodyBytes?: number;
  /** A directory served at `/` (the web chat's build). Default: none. */
  webRoot?: string;
  /**
   * The program and arguments that start one worker process, run in this
   * example's directory. Default: node with tsx running `src/worker.ts`
   * (the tests pass a bundle of it, which starts faster).
   */
  workerCommand?: readonly string[];
  /**
   * Milliseconds a turn's stream (`/events`, `/chat`) may stay silent
   * before an SSE comment (`: keep-alive`) keeps the connection open, and
   * again at each further interval: a proxy or browser drops an idle
   * stream while a tool runs long or an approval waits for a person.
   * Clients skip comments (`useChat`, `EventSource`). Default
   * `DEFAULT_KEEP_ALIVE_MS` of `@turnkit/ui-stream` (15 s); 0 sends none.
   */
  keepAliveMs?: number;
}

/** A running example: its URL, its workers, and how to stop everything. */
export interface DurableServer {
  url: string;
  /** The demo login: each user's bearer token (empty when `authenticate` was given). */
  tokens: Record<string, string>;
  workers(): WorkerInfo[];
  /**
   * Starts worker `workerId` again after it died (a supervisor would): with
   * the same id, it queues the turns it was running again at once (it or
   * another worker takes them up), without waiting for their lease.
   * Resolves once it takes turns; does nothing for a worker that still runs.
   */
  restartWorker(workerId: string): Promise<void>;
  /** Stops the HTTP server, the workers and (when it started one) Postgres. */
  stop(): Promise<void>;
}

const DEFAULT_WORKER_COMMAND = [process.execPath, "--import", "tsx", "--conditions=source", WORKER_SCRIPT];

function startWorker(workerId: string, env: Record<string, string>, command: readonly string[]): Promise<ChildProcess> {
  const [program, ...args] = command;
  const child = spawn(program!, args, {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, ...env, WORKER_ID: workerId },
    // stdin stays open while this process lives: the worker exits when it closes.
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (String(chunk).includes("ready")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker ${workerId} exited with ${code} before it was ready`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the whole example: Postgres (embedded, or `DATABASE_URL`), the
 * worker processes, and the HTTP server in this process. Rejects (after
 * stopping whatever started) when any part fails to start.
 */
export async function startDurableServer(options: DurableServerOptions = {}): Promise<DurableServer> {
  const postgres = await startTestPostgres();
  const children = new Map<string, ChildProcess>();
  let client: DurableTurnClient | undefined;
  let store: SessionStore | undefined;
  let server: ReturnType<typeof serve> | undefined;
  const stop = async () => {
    await new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      // Open streams (a page left open) must not keep the server from closing.
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
    await Promise.all([...children.values()].map(stopChild));
    await store?.close();
    await client?.close();
    await postgres.stop();
  };
  try {
    const env = { DATABASE_URL: postgres.url, LEASE_MS: String(options.leaseMs ?? 3000), ...options.workerEnv };
    const ids = Array.from({ length: options.workers ?? 2 }, (_, i) => `worker-${i + 1}`);
    const command = options.workerCommand ?? DEFAULT_WORKER_COMMAND;
    // Started together; a worker that fails to start is stopped with the rest.
    const started = await Promise.allSettled(
      ids.map(async (id) => children.set(id, await startWorker(id, env, command))),
    );
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
    const workers = () =>
      ids
        .filter((id) => children.get(id)?.exitCode === null && children.get(id)?.signalCode === null)
        .map((id) => ({ workerId: id, pid: children.get(id)?.pid }));
    store = await SessionStore.connect(postgres.url);
    const tokens = options.authenticate ? {} : demoTokens(options.users ?? ["alice", "bob"]);
    const app = createRoutes({
      client,
      store,
      workers,
      authenticate: options.authenticate ?? bearerTokens(tokens),
      maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
      webRoot: options.webRoot,
      keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    });
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: options.port ?? 8787, hostname: "127.0.0.1" }, (info: AddressInfo) =>
        resolve(info.port),
      );
    });
    const byUser = Object.fromEntries(Object.entries(tokens).map(([token, user]) => [user, token]));
    const restartWorker = async (workerId: string) => {
      if (!ids.includes(workerId) || workers().some((w) => w.workerId === workerId)) return;
      children.set(workerId, await startWorker(workerId, env, command));
    };
    return { url: `http://127.0.0.1:${port}`, tokens: byUser, workers, restartWorker, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
