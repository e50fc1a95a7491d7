import type pg from "pg";
import { HandingBackPool } from "./handing-back-pool.js";
import { isConnectionEndedError, isDatabaseUnreachable } from "./unreachable-database.js";

/** How often a transaction Postgres aborted as a deadlock's victim or a serialisation conflict is tried in all. */
const TRANSIENT_ATTEMPTS = 3;

/**
 * Postgres's codes for a transaction it aborted only because of another one
 * running at the same time (`deadlock_detected`, `serialization_failure`):
 * it rolled back, and running it again is how Postgres expects the client
 * to answer.
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(["40P01", "40001"]);

/**
 * Runs `work` in one transaction on a pooled connection: committed when it
 * resolves, rolled back when it throws (the error is rethrown). A
 * transaction Postgres aborted because of a concurrent one (a deadlock's
 * victim, a serialisation conflict) is run again from the start, up to
 * three times in all, so `work` must only talk to the database through
 * `client`. A connection the server ended while it sat idle in the pool
 * (a restart, a failover, `pg_terminate_backend`), before the pool heard
 * of it, fails at `BEGIN` having run nothing: another one is taken (see
 * {@link begin}). On a {@link HandingBackPool}, a transaction of a turn's
 * execution whose connection was lost after that hands the turn back, as
 * its single statements do.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inOneTransaction(pool, work);
    } catch (error) {
      if (attempt >= TRANSIENT_ATTEMPTS || !hasSqlState(error, TRANSIENT_CODES))
        throw pool instanceof HandingBackPool ? await pool.lostConnection(error) : error;
    }
  }
}

/** Whether `error` is a Postgres error whose SQLSTATE (`code`) is one of `codes`. */
export function hasSqlState(error: unknown, codes: ReadonlySet<string>): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && codes.has(code);
}

/**
 * A pooled connection with a transaction begun on it. One whose `BEGIN`
 * the server answered by ending it (it was ended while idle in the pool,
 * and the pool had not yet read the server's notice) is closed and
 * another one taken, as often as the pool may hold connections and once
 * more, so every stale one is dropped. Any other failure of `BEGIN`
 * closes the connection and rejects.
 */
async function begin(pool: pg.Pool): Promise<pg.PoolClient> {
  const attempts = (pool.options.max ?? 10) + 1;
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    // A connection lost while checked out is reported to its statements; as an event with no listener it would end the process.
    client.on("error", ignoreConnectionError);
    try {
      await client.query("BEGIN");
      return client;
    } catch (error) {
      client.off("error", ignoreConnectionError);
      client.release(true);
      if (attempt >= attempts || !isConnectionEndedError(error)) throw error;
    }
  }
}

async function inOneTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await begin(pool);
  // A connection whose rollback failed (lost, or the server stopped answering) is closed, not used again.
  let broken = false;
  try {
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection lost or not answering is closed without a rollback (the server rolls back when it closes): a
    // rollback would wait behind the statement that was given up.
    if (isDatabaseUnreachable(error)) broken = true;
    else
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
    throw error;
  } finally {
    client.off("error", ignoreConnectionError);
    client.release(broken);
  }
}

function ignoreConnectionError(): void {}
