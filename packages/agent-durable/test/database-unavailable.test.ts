/*
 * A client or a worker pointed at a Postgres it cannot use (nothing
 * listening, a server that never answers, a wrong password, a database that
 * does not exist) rejects within its connect timeout with one typed
 * `database_unavailable` error that names the URL without its password and
 * the reason, and leaves no connection open. Before, it rejected with the
 * driver's raw error, and against a server that accepted the connection but
 * never answered it waited forever. A worker whose database stops
 * answering while it shuts down likewise rejects within its query timeout
 * and closes its connections, where before its shutdown waited without end.
 */
import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient, DurableTurnError, DurableTurnWorker } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { proxiedDatabase } from "./support/freezing-proxy.js";
import { scenarioBuildTurn } from "./support/scenario-turns.js";
import { waitFor } from "./support/worker-cluster.js";

let postgres: TestPostgres;
/** A TCP server that takes connections and never says a word, as a hung server or a wrong service would. */
let silent: Server;
const silentSockets = new Set<Socket>();

beforeAll(async () => {
  postgres = await startTestPostgres();
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.resume(); // reads and drops what the client sends, so its hanging up is seen
    socket.on("close", () => silentSockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
}, 60_000);

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await postgres?.stop();
});

/** One statement on a connection of its own to the test's database. */
async function postgresQuery(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function withPassword(url: string, password: string): string {
  const changed = new URL(url);
  changed.password = password;
  return changed.toString();
}

function withDatabase(url: string, database: string): string {
  const changed = new URL(url);
  changed.pathname = `/${database}`;
  return changed.toString();
}

/** Expects `call` to reject within `withinMs` with `database_unavailable` whose message matches `says` and hides the password. */
async function unavailable(call: () => Promise<unknown>, says: RegExp, withinMs: number): Promise<void> {
  const started = Date.now();
  const error = await call().then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(Date.now() - started).toBeLessThan(withinMs);
  expect(DurableTurnError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ code: "database_unavailable" });
  const message = (error as Error).message;
  expect(message).toMatch(says);
  expect(message).toMatch(/postgres(ql)?:\/\/[^:]+:\*\*\*@/);
  expect(message).not.toMatch(/secret-password|turnkit@/);
  expect((error as Error).cause).toBeDefined();
}

const buildTurn = () => ({ llm: {} }) as never;

describe("a database that cannot be used", () => {
  it("connect and launch name the URL without its password when nothing listens there", async () => {
    const url = `postgres://postgres:secret-password@127.0.0.1:${await closedPort()}/turnkit`;
    await unavailable(
      () => DurableTurnClient.connect({ databaseUrl: url }),
      /127\.0\.0\.1:\d+\/turnkit: connection refused/,
      5_000,
    );
    await unavailable(() => DurableTurnWorker.launch({ databaseUrl: url, buildTurn }), /connection refused/, 5_000);
    // A password given as a parameter is hidden too.
    const inQuery = `postgres://postgres@127.0.0.1:${new URL(url).port}/turnkit?password=secret-password`;
    const error = await DurableTurnClient.connect({ databaseUrl: inQuery }).catch((rejected: unknown) => rejected);
    expect(error).toMatchObject({ code: "database_unavailable", message: expect.stringContaining("password=***") });
    expect((error as Error).message).not.toContain("secret-password");
  });

  it("give up on a server that never answers after connectTimeoutMs, leaving no connection open", async () => {
    const { port } = silent.address() as { port: number };
    const url = `postgres://postgres:secret-password@127.0.0.1:${port}/turnkit`;
    await unavailable(
      () => DurableTurnClient.connect({ databaseUrl: url, connectTimeoutMs: 300 }),
      /no answer within 300 ms/,
      5_000,
    );
    await unavailable(
      () => DurableTurnWorker.launch({ databaseUrl: url, buildTurn, connectTimeoutMs: 300 }),
      /no answer within 300 ms/,
      5_000,
    );
    const deadline = Date.now() + 2_000;
    while (silentSockets.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(silentSockets.size).toBe(0);
  });

  it("say the credentials were refused, or that the database does not exist", async () => {
    const badPassword = withPassword(postgres.url, "secret-password");
    await unavailable(() => DurableTurnClient.connect({ databaseUrl: badPassword }), /authentication failed/, 5_000);
    await unavailable(
      () => DurableTurnWorker.launch({ databaseUrl: badPassword, buildTurn }),
      /authentication failed/,
      5_000,
    );
    const missing = withDatabase(postgres.url, "no_such_database");
    await unavailable(
      () => DurableTurnClient.connect({ databaseUrl: missing }),
      /no_such_database: no such database/,
      5_000,
    );
  });

  it("refuses a connectTimeoutMs that is not a positive number with invalid_input naming it", async () => {
    await expect(DurableTurnClient.connect({ databaseUrl: postgres.url, connectTimeoutMs: 0 })).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/connectTimeoutMs/),
    });
    await expect(
      DurableTurnWorker.launch({ databaseUrl: postgres.url, buildTurn, connectTimeoutMs: "1s" as never }),
    ).rejects.toMatchObject({ code: "invalid_input", message: expect.stringMatching(/connectTimeoutMs/) });
    // Still a usable database: a client connects, and a failed launch left this process free to launch a worker.
    const client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
    await client.close();
  });
});

describe("a database that stops answering while a worker launches", () => {
  // The connection the launch's first look made is the proxy's first; it freezes at the second (the tables), or later
  // (the lease, DBOS). Before, the launch waited for an answer without end.
  for (const freezeAt of [2, 4, 6]) {
    it(`rejects with database_unavailable within queryTimeoutMs, leaves nothing open, and launches once it answers (frozen at connection ${freezeAt})`, async () => {
      const { proxy, url } = await proxiedDatabase(postgres.url, { noticeHangUps: true });
      try {
        proxy.freezeAtConnection(freezeAt);
        const timeouts = { connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 };
        await unavailable(
          () => DurableTurnWorker.launch({ databaseUrl: url, buildTurn, workerId: "launch-frozen", ...timeouts }),
          /did not answer|no answer/,
          4_000,
        );
        // DBOS's migration among them (before, it opened a connection of its own, which stayed until the database answered).
        await waitFor("no connection of the worker left open", () => proxy.openConnections === 0, 2_000);
        proxy.thaw();
        const worker = await DurableTurnWorker.launch({ databaseUrl: url, buildTurn, workerId: "launch-frozen" });
        await worker.shutdown();
      } finally {
        proxy.thaw();
        await proxy.close();
      }
    });
  }
});

describe("a database that answers every statement, slowly, while a worker launches and shuts down", () => {
  // Each answer comes 40 ms late (a slow network): no statement waits anywhere near queryTimeoutMs, but the launch's
  // dozens of round trips take longer than it in all. Before, the launch (and each stage of the shutdown) had to be
  // done within one statement's timeout: it rejected with database_unavailable though every statement was answered.
  it("launches and shuts down", async () => {
    const { proxy, url } = await proxiedDatabase(postgres.url, { answerDelayMs: 40 });
    try {
      const queryTimeoutMs = 1_000;
      const started = performance.now();
      const worker = await DurableTurnWorker.launch({
        databaseUrl: url,
        buildTurn,
        workerId: "launch-slow-answers",
        queryTimeoutMs,
      });
      // The scenario happened: the launch took longer than one statement may.
      expect(performance.now() - started).toBeGreaterThan(queryTimeoutMs);
      await worker.shutdown();
    } finally {
      await proxy.close();
    }
  });
});

describe("a database that stops answering while a worker shuts down", () => {
  it("rejects with database_unavailable within its timeouts, leaves nothing open, and its turn goes on in the next launch", async () => {
    const { proxy, url } = await proxiedDatabase(postgres.url, { noticeHangUps: true });
    const launch = (timeouts: { connectTimeoutMs?: number; queryTimeoutMs?: number } = {}) =>
      DurableTurnWorker.launch({
        databaseUrl: url,
        buildTurn: scenarioBuildTurn("/dev/null"),
        workerId: "shutdown-frozen",
        ...timeouts,
      });
    try {
      const timeouts = { connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 };
      const worker = await launch(timeouts);
      const turn = await worker.client.start({
        sessionId: "s-shutdown-frozen",
        turnId: "shutdown-frozen",
        userMessage: { text: "write it" },
        metadata: { scenario: "approval" },
      });
      await waitFor("the approval request", async () =>
        (await worker.client.readEvents(turn)).some((e) => e.type === "action.required"),
      );
      proxy.freeze();
      // Before, it waited for the database without end, its connections open. Now within its timeouts, which take
      // 4 s of the 6 s this allowed before (a loaded machine took the rest): the wait for endings (a statement's
      // time here), each stage of the hand-back (three) within a connection's and a statement's time, and the
      // closing of DBOS, the client and the pools, a statement's time each.
      const { connectTimeoutMs, queryTimeoutMs } = timeouts;
      const withinMs = queryTimeoutMs + 3 * (connectTimeoutMs + queryTimeoutMs) + 3 * queryTimeoutMs;
      await unavailable(() => worker.shutdown(), /did not answer|no answer/, withinMs);
      await waitFor("no connection of the worker left open", () => proxy.openConnections === 0, 2_000);
      proxy.thaw();
      // The turn was not handed back: the next launch of the worker id takes it over at once (the closed connections
      // let go of the old launch's presence lock), and it goes on.
      const next = await launch();
      try {
        await next.client.respond(turn, "approval:shutdown-frozen-call-0", { approved: true });
        expect(await next.client.outcome(turn)).toMatchObject({ kind: "completed" });
      } finally {
        await next.shutdown();
      }
    } finally {
      proxy.thaw();
      await proxy.close();
    }
  }, 30_000);
});

describe("a launch whose migration waits for a lock another session holds", () => {
  it("rejects with database_unavailable within queryTimeoutMs and leaves no connection open in the server", async () => {
    // A stuck session holds DBOS's migration table: the launch's migration waits for it on a connection of the server.
    const stuck = new pg.Client({ connectionString: postgres.url });
    await stuck.connect();
    // Every other connection to the test's database: the stuck session's and the launch's (a fresh snapshot each look).
    const others = async () => {
      const { rows } = await postgresQuery(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'stuck' AND pid <> pg_backend_pid()",
      );
      return (rows[0] as { n: number }).n;
    };
    await stuck.query("SET application_name = 'stuck'");
    try {
      await stuck.query("BEGIN");
      await stuck.query("LOCK TABLE dbos.dbos_migrations IN ACCESS EXCLUSIVE MODE");
      const launching = DurableTurnWorker.launch({
        databaseUrl: postgres.url,
        buildTurn,
        workerId: "launch-locked",
        queryTimeoutMs: 500,
      });
      await expect(launching).rejects.toMatchObject({ code: "database_unavailable" });
      // Before, DBOS's migration kept its own connection waiting for the lock, in the server, until it was let go.
      await waitFor("no connection of the launch left in the server", async () => (await others()) === 0, 3_000);
    } finally {
      await stuck.end();
    }
  });
});

describe("a database slow to accept connections while a worker launches", () => {
  // Every connection from the n-th on waits until 1.6 leases after the n-th came in before the proxy passes a byte:
  // the launch's first heartbeat (one of them) gives up after a lease, and tries again within connectTimeoutMs.
  it("launches once the connections go through, within connectTimeoutMs", async () => {
    const leaseMs = 600;
    for (const slowFrom of [2, 3, 4, 5, 6]) {
      const { proxy, url } = await proxiedDatabase(postgres.url);
      try {
        proxy.freezeAtConnection(slowFrom, leaseMs * 1.6);
        const launching = DurableTurnWorker.launch({
          databaseUrl: url,
          buildTurn,
          workerId: `launch-slow-${slowFrom}`,
          leaseMs,
          connectTimeoutMs: 8_000,
          queryTimeoutMs: 8_000,
        });
        const worker = await launching.catch((error: unknown) => {
          throw new Error(`slow from connection ${slowFrom}: ${String(error)}`);
        });
        // The launch reached the slow connection (before, a thaw timed from the launch's start could come first).
        const reached = proxy.connectionsSoFar;
        await worker.shutdown();
        expect(reached).toBeGreaterThanOrEqual(slowFrom);
      } finally {
        proxy.thaw();
        await proxy.close();
      }
    }
  });
});
