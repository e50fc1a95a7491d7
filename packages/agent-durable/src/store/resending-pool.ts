import pg from "pg";
import { hasSqlState } from "./transaction.js";

/**
 * Postgres's codes for a connection the server ended under a statement
 * (`admin_shutdown`: an administrator's `pg_terminate_backend` or a fast
 * shutdown; `crash_shutdown`; `cannot_connect_now`: a server still starting
 * or a failover). The server rolled back whatever the statement had done,
 * so sending it again, on another connection, is how a client answers.
 */
const CONNECTION_ENDED_CODES: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03"]);

/** Whether `error` says the server ended the connection under the statement (see the codes above). */
export function isConnectionEndedError(error: unknown): boolean {
  return hasSqlState(error, CONNECTION_ENDED_CODES);
}

/**
 * A `pg.Pool` whose `query(text, values)` sends a statement again when the
 * server ended the connection under it (see {@link isConnectionEndedError}).
 * When the database drops every connection at once, the pool may still
 * hold idle connections it has not yet heard are gone: each failed send
 * drops one, so a statement is sent at most `max` + 1 times in all. Other
 * errors, and queries given a callback, pass through as `pg.Pool` answers
 * them. Transactions (`connect()`) are not resent: their caller decides.
 */
export class ResendingPool extends pg.Pool {
  override query(...args: any[]): any {
    const [config, values, callback] = args;
    if (typeof values === "function" || typeof callback === "function" || typeof config?.submit === "function") {
      return (super.query as (...all: any[]) => any)(...args);
    }
    return this.send(config, values);
  }

  private async send(config: unknown, values: unknown): Promise<pg.QueryResult> {
    const attempts = (this.options.max ?? 10) + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await (super.query as (config: unknown, values: unknown) => Promise<pg.QueryResult>)(config, values);
      } catch (error) {
        if (attempt >= attempts || !isConnectionEndedError(error)) throw error;
      }
    }
  }
}
