import pg from "pg";
import { isConnectionEndedError } from "./unreachable-database.js";

/**
 * A `pg.Pool` whose `query(text, values)` sends a statement again when the
 * server ended the connection under it (see {@link isConnectionEndedError}).
 * When the database drops every connection at once, the pool may still
 * hold idle connections it has not yet heard are gone: each failed send
 * drops one, so a statement is sent at most `max` + 1 times in all. Other
 * errors, and queries given a callback, pass through as `pg.Pool` answers
 * them. Transactions (`connect()`) are not resent: their caller decides
 * (`inTransaction` takes another connection when `BEGIN` found one ended).
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
