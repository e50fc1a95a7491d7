/*
 * The server ends a connection right after making it (a restart, a
 * failover, pg_terminate_backend while a pool opens a connection): its
 * "terminating connection" can come in the same read as the connection's
 * ready message. pg-pool hands a new connection to `await pool.connect()`
 * with no error listener, and the caller adds one only once its await
 * resumes, after that read was handled: the worker process ended on an
 * unhandled `error` event (a chaos run with connection cuts, seed
 * 359753572). A proxy here holds what the server sends from its
 * "authentication ok" on until the backend was terminated, then passes it
 * on in one write.
 */
import { createServer, type Server, type Socket, connect as connectSocket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionSockets } from "../src/store/connection-sockets.js";
import { checkDatabaseReachable } from "../src/store/database-check.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { workerPools } from "../src/workers/worker-pools.js";
import { waitFor } from "./support/worker-cluster.js";
import { connectAdmin } from "./support/admin-client.js";

/**
 * A proxy to Postgres that passes the server's messages on until its
 * `AuthenticationOk`, and holds that one and everything after it until
 * {@link release}, which writes them in one piece.
 */
class ReadyHoldingProxy {
  private readonly server: Server;
  private held: Buffer[] = [];
  private down: Socket | undefined;
  /** The held connection's backend pid (from its `BackendKeyData`), once the server sent it. */
  backendPid: number | undefined;
  /** True once the server ended the held connection. */
  serverEnded = false;

  constructor(target: { host: string; port: number }) {
    this.server = createServer((down) => {
      this.down = down;
      const up = connectSocket(target.port, target.host);
      down.on("error", () => up.destroy());
      up.on("error", () => down.destroy());
      up.on("close", () => (this.serverEnded = true));
      down.pipe(up);
      let pending = Buffer.alloc(0);
      let holding = false;
      up.on("data", (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        // Whole messages: a type byte, then a length that counts itself.
        while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
          const size = 1 + pending.readInt32BE(1);
          const message = pending.subarray(0, size);
          pending = pending.subarray(size);
          if (message[0] === 0x52 && message.readInt32BE(5) === 0) holding = true;
          if (message[0] === 0x4b) this.backendPid = message.readInt32BE(5);
          if (holding) this.held.push(Buffer.from(message));
          else down.write(message);
        }
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as { port: number }).port;
  }

  /** Passes on everything held, in one write, and ends the client's side. */
  release(): void {
    this.down!.end(Buffer.concat(this.held));
  }

  async close(): Promise<void> {
    this.down?.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let postgres: TestPostgres;
let admin: pg.Client;

beforeAll(async () => {
  postgres = await startTestPostgres();
  admin = await connectAdmin(postgres.url);
});

afterAll(async () => {
  await admin?.end();
  await postgres?.stop();
});

describe("a connection the server ends right after making it", () => {
  it("fails the statements of whoever took it from a worker's pool, and never the worker's process", async () => {
    const serverVersion = await checkDatabaseReachable(postgres.url, 5_000);
    const settings = { workerId: "guarded", leaseMs: 15_000, queueName: "q", queryTimeoutMs: 5_000 };
    const turns = { claims: () => [], stopped: () => false };
    const sockets = new ConnectionSockets();
    const target = new URL(postgres.url);
    // What reached no listener (vitest reports it too, after the test).
    const escaped: string[] = [];
    const onUncaught = (error: Error) => escaped.push(`${error.message}`);
    process.prependListener("uncaughtException", onUncaught);
    for (const name of ["pool", "behindCheckpointPool", "logPool", "dbosPool", "beatPool"] as const) {
      const proxy = new ReadyHoldingProxy({ host: target.hostname, port: Number(target.port) });
      const url = new URL(postgres.url);
      url.port = String(await proxy.listen());
      const pools = workerPools(url.toString(), settings, sockets, serverVersion, turns);
      try {
        // Taken as our transactions and DBOS's statements take a connection.
        const taking = pools[name].connect();
        await waitFor(`${name}: the connection made and held`, () => proxy.backendPid !== undefined);
        await admin.query("SELECT pg_terminate_backend($1)", [proxy.backendPid]);
        await waitFor(`${name}: the server ending the connection`, () => proxy.serverEnded);
        // Ready, then terminated, in one read.
        proxy.release();
        const client = await taking;
        await expect(client.query("SELECT 1"), name).rejects.toThrow();
        client.release(true);
      } finally {
        await Promise.all(pools.pools.map((each) => each.end().catch(() => {})));
        await proxy.close();
      }
    }
    process.off("uncaughtException", onUncaught);
    expect(escaped).toEqual([]);
  });
});
