import { performance } from "node:perf_hooks";
import pg from "pg";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import type { ConnectionSockets } from "./connection-sockets.js";
import { isDatabaseUnreachable } from "./unreachable-database.js";

/**
 * `databaseUrl` as it may be shown in an error or a log: the password of a
 * `postgres://user:password@host/db` URL replaced by `***`, and any
 * `password=` parameter (in the query of a URL, or in a `key=value`
 * connection string) likewise.
 */
export function redactedDatabaseUrl(databaseUrl: string): string {
  const hidden = databaseUrl.replace(/(password=)[^&\s]*/gi, "$1***");
  try {
    const url = new URL(hidden);
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return hidden;
  }
}

/**
 * Opens one connection to `databaseUrl`, reads the server's version and
 * closes it, so that a client or a worker finds out at once, before it sets
 * anything up, that it cannot reach its database. Resolves to the server's
 * `server_version_num` (e.g. 180004). Rejects with `database_unavailable`
 * (see {@link databaseUnavailable}) when the connection fails or is not
 * ready, or the version is not read, within `timeoutMs`; leaves no
 * connection or timer behind either way.
 */
export async function checkDatabaseReachable(databaseUrl: string, timeoutMs: number): Promise<number> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // An error after connect (the server ending the connection) must not reach the process as an unhandled event.
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query("SHOW server_version_num");
    return Number((rows[0] as { server_version_num: string }).server_version_num);
  } catch (error) {
    throw databaseUnavailable(databaseUrl, error, timeoutMs);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The `database_unavailable` error for `error`, what the driver reported
 * when it tried to connect to `databaseUrl`: the message names the URL
 * (password redacted) and the reason in plain words (refused, host not
 * found, no answer within `timeoutMs`, authentication failed, no such
 * database); `cause` is the driver's error.
 */
export function databaseUnavailable(databaseUrl: string, error: unknown, timeoutMs: number): DurableTurnError {
  return new DurableTurnError({
    code: DurableTurnErrorCode.DatabaseUnavailable,
    message: `cannot connect to Postgres at ${redactedDatabaseUrl(databaseUrl)}: ${reasonOf(error, timeoutMs)}`,
    cause: error,
  });
}

/**
 * The `database_unavailable` error of a client call whose database could
 * not be reached or did not answer within `timeoutMs` (see
 * {@link isDatabaseUnreachable}): the message names the URL (password
 * redacted) and why; `cause` is the driver's error. Any other error is
 * returned as it is.
 */
export function asDatabaseUnavailable(error: unknown, databaseUrl: string, timeoutMs: number): unknown {
  if (DurableTurnError.isInstance(error) || !isDatabaseUnreachable(error)) return error;
  return new DurableTurnError({
    code: DurableTurnErrorCode.DatabaseUnavailable,
    message: `Postgres at ${redactedDatabaseUrl(databaseUrl)} did not answer: ${reasonOf(error, timeoutMs)}`,
    cause: error,
  });
}

/**
 * Settles as `work` does, or rejects with `database_unavailable` once
 * `timeoutMs` passed without it settling (what `work` does later is
 * ignored): for a call of a library that retries a statement the database
 * does not answer, without end, such as DBOS's.
 */
export function answeredWithin<T>(work: Promise<T>, databaseUrl: string, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(asDatabaseUnavailable(new Error(`Query read timeout (${timeoutMs} ms)`), databaseUrl, timeoutMs)),
      timeoutMs,
    );
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Settles as `work` does, or rejects with `database_unavailable` once one
 * of `sockets` has waited `timeoutMs` for the server to answer what it sent
 * (a statement, a connection's startup, a lock wait), or once `work` has
 * gone on for `capMs` in all (what the sockets cannot show: a library that
 * retries a failed connection without end, a connection wrapped in TLS).
 * What `work` does later is ignored. For work of many statements, such as
 * a worker's launch, that a slow database answers one by one: each
 * statement, not the whole, gets one statement's time.
 */
export function answeredWhileSocketsWait<T>(
  work: Promise<T>,
  watch: { sockets: ConnectionSockets; databaseUrl: string; timeoutMs: number; capMs: number },
): Promise<T> {
  const { sockets, databaseUrl, timeoutMs, capMs } = watch;
  const started = performance.now();
  let timer: ReturnType<typeof setInterval> | undefined;
  const unanswered = new Promise<never>((_, reject) => {
    timer = setInterval(
      () => {
        if (sockets.longestWaitMs() >= timeoutMs)
          reject(asDatabaseUnavailable(new Error(`Query read timeout (${timeoutMs} ms)`), databaseUrl, timeoutMs));
        else if (performance.now() - started >= capMs)
          reject(asDatabaseUnavailable(new Error(`Query read timeout (${capMs} ms in all)`), databaseUrl, capMs));
      },
      Math.min(WATCH_INTERVAL_MS, timeoutMs / 4),
    );
  });
  work.catch(() => {});
  return Promise.race([work, unanswered]).finally(() => clearInterval(timer));
}

/** How often {@link answeredWhileSocketsWait} looks at the sockets, at most. */
const WATCH_INTERVAL_MS = 100;

function reasonOf(error: unknown, timeoutMs: number): string {
  const { code, message } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const text = typeof message === "string" ? message : String(error);
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused (nothing listens there): ${text}`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found: ${text}`;
    case "28P01":
    case "28000":
      return `authentication failed: ${text}`;
    case "3D000":
      return `no such database: ${text}`;
    case "57P03":
      return `the server does not accept connections now: ${text}`;
  }
  if (/timeout/i.test(text)) return `no answer within ${timeoutMs} ms (${text})`;
  return typeof code === "string" ? `${text} (${code})` : text;
}
