/*
 * The database ends a connection under a statement (an administrator's
 * pg_terminate_backend, a restart, a failover): a plain pg.Pool rejects the
 * statement with 57P01; the client's pool sends it again on a new
 * connection and answers as if nothing had happened.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResendingPool } from "../src/store/resending-pool.js";
import { inTransaction } from "../src/store/transaction.js";
import { isConnectionEndedError } from "../src/store/unreachable-database.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { connectAdmin } from "./support/admin-client.js";

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

/** Ends, from the admin connection, every connection of `applicationName` as soon as one runs a statement; how many. */
async function terminateOnceBusy(applicationName: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE application_name = $1 AND state = 'active'`,
      [applicationName],
    );
    if (rows[0].n > 0) return rows[0].n;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no connection of ${applicationName} became busy`);
}

/** A slow statement on `pool`, and the termination of its connection while it runs. */
async function slowStatementCutOnce(pool: pg.Pool, applicationName: string): Promise<PromiseSettledResult<unknown>> {
  // Settled from the start: a rejection that comes while the termination is still being asked for is not unhandled.
  const statement = Promise.allSettled([pool.query("SELECT pg_sleep(0.3), 7 AS answer")]);
  expect(await terminateOnceBusy(applicationName)).toBe(1);
  const [settled] = await statement;
  return settled!;
}

/** Runs `work` with a pool of `Pool` named `applicationName` (two connections at most), ended afterwards. */
async function withPool(
  Pool: typeof pg.Pool,
  applicationName: string,
  work: (pool: pg.Pool) => Promise<void>,
): Promise<void> {
  const pool = new Pool({ connectionString: postgres.url, max: 2, application_name: applicationName });
  pool.on("error", () => {});
  try {
    await work(pool);
  } finally {
    await pool.end();
  }
}

describe("the client's pool when the database ends its connection", () => {
  it("a plain pool rejects the interrupted statement with 57P01 (what the client's pool answers)", () =>
    withPool(pg.Pool, "plain-pool", async (pool) => {
      const settled = await slowStatementCutOnce(pool, "plain-pool");
      expect(settled.status).toBe("rejected");
      const error = (settled as PromiseRejectedResult).reason;
      expect(error.code).toBe("57P01");
      expect(isConnectionEndedError(error)).toBe(true);
    }));

  it("sends the statement again on a new connection and answers with its result", () =>
    withPool(ResendingPool, "resending-pool", async (pool) => {
      const settled = await slowStatementCutOnce(pool, "resending-pool");
      expect(settled).toMatchObject({ status: "fulfilled", value: { rows: [{ answer: 7 }] } });
      // The pool goes on on its new connection.
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    }));

  it("passes every other error through as it came", () =>
    withPool(ResendingPool, "resending-errors", async (pool) => {
      await expect(pool.query("SELECT * FROM no_such_table")).rejects.toMatchObject({ code: "42P01" });
      await expect(pool.query("SELECT 1/0")).rejects.toMatchObject({ code: "22012" });
      expect(isConnectionEndedError(new Error("plain"))).toBe(false);
      expect(isConnectionEndedError(undefined)).toBe(false);
    }));

  it("runs a transaction again on another connection when its BEGIN found the idle one ended by the server", () =>
    withPool(ResendingPool, "resending-begin", async (pool) => {
      // Two idle connections in the pool, both ended by the server: each the pool hands out before it has read the
      // server's notice fails at BEGIN, having run nothing.
      const [a, b] = [await pool.connect(), await pool.connect()];
      a.release();
      b.release();
      let runs = 0;
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'resending-begin'",
      );
      const answer = await inTransaction(pool, async (client) => {
        runs++;
        return (await client.query("SELECT 7 AS answer")).rows[0].answer;
      });
      expect(answer).toBe(7);
      expect(runs).toBe(1);
    }));
});
