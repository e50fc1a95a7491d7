import type pg from "pg";
import { HandingBackPool } from "./handing-back-pool.js";
import { isDatabaseUnreachable } from "./unreachable-database.js";

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
 * `client`. On a {@link HandingBackPool}, a transaction of a turn's
 * execution whose connection was lost hands the turn back, as its
 * single statements do.
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

async function inOneTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection lost while checked out is reported to its statements; as an event with no listener it would end the process.
  client.on("error", ignoreConnectionError);
  // A connection whose rollback failed (lost, or the server stopped answering) is closed, not used again.
  let broken = false;
  try {
    await client.query("BEGIN");
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
