import {
  assertOneOfArgument,
  assertStringArgument,
  errorOptionsOf,
  hasBrand,
  readArgumentFields,
} from "@turnkit/agent-loop/internal";
import { TurnkitError } from "@turnkit/agent-core";

const DURABLE_TURN_ERROR_MARKER = Symbol.for("turnkit.agent-durable.DurableTurnError");

/** Stable codes of {@link DurableTurnError}. */
export const DurableTurnErrorCode = {
  /** Options or a request with a missing or malformed field; the message names it. */
  InvalidInput: "invalid_input",
  /**
   * `connect` or `launch` could not open a connection to Postgres: nothing
   * listens at the address, the host is unknown, the server did not answer
   * within `connectTimeoutMs`, it refused the user or password, or the
   * database does not exist. The message names the URL (its password
   * replaced by `***`) and the reason; `cause` is the driver's error.
   * Nothing was set up and no connection is left open. Also a client call
   * after `connect` whose database could not be reached or did not answer
   * a statement within `queryTimeoutMs` (what it sent may still take
   * effect once the database answers again).
   */
  DatabaseUnavailable: "database_unavailable",
  /** No turn with this session and turn id was ever started. */
  UnknownTurn: "unknown_turn",
  /** No session with this id was ever started or forked. */
  UnknownSession: "unknown_session",
  /** A fork or rewind named a turn that is queued or running: only a finished turn has a history to go back to. */
  TurnNotFinished: "turn_not_finished",
  /** A fork or rewind named a turn whose history is gone: a rewind took it out, or a later turn replaced the history (a compaction). */
  TurnNotInHistory: "turn_not_in_history",
  /** A rewind of a session with a turn queued or running; rewind once it ended (or abort it). */
  SessionBusy: "session_busy",
  /** A fork into a session id that already has a session, a turn or history. */
  SessionExists: "session_exists",
  /** `respond` named a request id the turn never asked. */
  UnknownRequest: "unknown_request",
  /**
   * `respond` to a question a tool call asked that was withdrawn: the call
   * waited for it when its worker died and was not run again (`replay:
   * "never"`), so nobody will take the answer.
   */
  RequestWithdrawn: "request_withdrawn",
  /**
   * A worker API used before `launch()` or after `shutdown()`, or a second
   * worker in one process; also a turn's step that ended after its worker
   * shut down (nothing of it is recorded, and a running worker resumes the
   * turn).
   */
  WorkerState: "worker_state",
  /** The event log could not be written after retrying; the turn's workflow fails and is recovered later. */
  LogWrite: "log_write",
  /**
   * An execution of the turn wrote an event under a seq the log holds for
   * another event (another type, message, chunk or request): it diverged
   * from the execution that logged it, which a replay must never do. The
   * log keeps what it holds and nothing more of that execution is logged:
   * it stops, and the turn ends `failed` (code `internal`) with a terminal
   * status after the log's last event whose message names this code, the
   * seq and both events. Seen only inside workers.
   */
  LogConflict: "log_conflict",
  /** The session history could not be written after retrying; the turn's workflow fails and is recovered later. */
  HistoryWrite: "history_write",
  /**
   * Another worker took the turn over (this worker's lease was taken while
   * it stalled): the execution that finds out writes nothing more and stops.
   * Seen only inside workers; the turn goes on in the other worker.
   */
  Superseded: "superseded",
  /**
   * `outcome` of a turn whose workflow ended without an outcome: DBOS
   * recorded an error for it, it was cancelled, or DBOS gave up recovering
   * it. The message says which; `cause` is DBOS's error.
   */
  WorkflowFailed: "workflow_failed",
} as const;

/** One of the {@link DurableTurnErrorCode} strings. */
export type DurableTurnErrorCode = (typeof DurableTurnErrorCode)[keyof typeof DurableTurnErrorCode];

/**
 * What `@turnkit/agent-durable` throws on purpose: bad input to a client or
 * worker API, an unknown turn or approval request, a worker used in the
 * wrong state, a store that could not be written. It is a `TurnkitError`,
 * so `TurnkitError.isInstance` recognises it as well;
 * `DurableTurnError.isInstance(e)` recognises one across duplicated package
 * copies, where `instanceof` would not.
 */
export class DurableTurnError extends TurnkitError {
  /** Which failure; one of {@link DurableTurnErrorCode}, stable for callers to branch on. */
  declare readonly code: DurableTurnErrorCode;
  /** Brand `isInstance` checks; keyed by `Symbol.for`, so it matches across package copies. */
  readonly [DURABLE_TURN_ERROR_MARKER] = true;

  /** `options`: a `code` of {@link DurableTurnErrorCode}, a string `message`, an optional `cause`, each read once; anything else is a `TypeError` naming it. */
  constructor(options: { code: DurableTurnErrorCode; message: string; cause?: unknown }) {
    const where = "DurableTurnError";
    const { code, message, cause } = readArgumentFields(options, where, "options", ["code", "message", "cause"]);
    assertOneOfArgument(code, Object.values(DurableTurnErrorCode), where, "options.code");
    assertStringArgument(message, where, "options.message");
    super(code, message, errorOptionsOf(cause));
    this.name = "DurableTurnError";
  }

  /** True for a DurableTurnError from any copy of the package. */
  static override isInstance(value: unknown): value is DurableTurnError {
    return TurnkitError.isInstance(value) && hasBrand(value, DURABLE_TURN_ERROR_MARKER);
  }
}

/**
 * The `DurableTurnError` for the error DBOS reports for a turn's workflow
 * (`outcome`): one thrown as a `DurableTurnError` inside the workflow comes
 * back with its code and message (DBOS stores errors as plain data, so the
 * marker that `isInstance` reads is lost on the way); anything else is
 * `workflow_failed`. `cause` is the error as DBOS reported it.
 */
export function workflowFailure(error: unknown): DurableTurnError {
  if (DurableTurnError.isInstance(error)) return error;
  const { code, message } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const text = typeof message === "string" && message !== "" ? message : String(error);
  if (isDurableTurnErrorCode(code)) return new DurableTurnError({ code, message: text, cause: error });
  return new DurableTurnError({
    code: DurableTurnErrorCode.WorkflowFailed,
    message: `The turn's workflow ended without an outcome: ${text}`,
    cause: error,
  });
}

function isDurableTurnErrorCode(value: unknown): value is DurableTurnErrorCode {
  return typeof value === "string" && (Object.values(DurableTurnErrorCode) as string[]).includes(value);
}

/** Shorthand for an `invalid_input` error naming the field. */
export function invalidInput(message: string): DurableTurnError {
  return new DurableTurnError({ code: DurableTurnErrorCode.InvalidInput, message });
}

/**
 * The `request_withdrawn` error of `respond` to a question turn `turnId`
 * withdrew: the tool call that asked was interrupted by a restart and not
 * run again, or (`cancelled`) the turn was cancelled (aborted while
 * queued, or with DBOS's tools) before the question was answered.
 */
export function requestWithdrawn(turnId: string, requestId: string, cancelled = false): DurableTurnError {
  const why = cancelled
    ? "the turn was cancelled before it was answered"
    : "the tool call that asked was interrupted by a restart and not run again";
  return new DurableTurnError({
    code: DurableTurnErrorCode.RequestWithdrawn,
    message: `turn ${turnId} withdrew ${JSON.stringify(requestId)}: ${why}`,
  });
}

/** An `unknown_request` error: `respond` named a request id the turn never asked. */
export function unknownRequest(turnId: string, requestId: string): DurableTurnError {
  return new DurableTurnError({
    code: DurableTurnErrorCode.UnknownRequest,
    message: `turn ${turnId} never asked ${JSON.stringify(requestId)}`,
  });
}

/** An `unknown_turn` error for a turn that was never started. */
export function unknownTurn(turn: { sessionId: string; turnId: string }): DurableTurnError {
  return new DurableTurnError({
    code: DurableTurnErrorCode.UnknownTurn,
    message: `no turn ${turn.turnId} in session ${turn.sessionId} was started`,
  });
}
