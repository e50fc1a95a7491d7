/**
 * The driver's error codes of a connection that could not be made or was
 * lost (refused, reset, host not found, unreachable, timed out).
 */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** What `pg` says when a connection could not be had or was lost, or a statement went unanswered. */
const CONNECTION_ERROR_TEXT =
  /timeout exceeded when trying to connect|connection timeout|Connection terminated|Query read timeout|Client has encountered a connection error|not queryable/i;

/**
 * Whether `error` says the database could not be reached or stopped
 * answering (a connection refused, lost or not had in time, a statement
 * unanswered past its timeout, the server ending the connection: SQLSTATE
 * class 08 and 57P01–57P03), as opposed to what a statement did wrong.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (CONNECTION_ERROR_CODES.has(code) || /^08|^57P0[123]$/.test(code))) return true;
  return typeof message === "string" && CONNECTION_ERROR_TEXT.test(message);
}

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
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CONNECTION_ENDED_CODES.has(code);
}
