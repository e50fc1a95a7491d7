// Why this file is long: it is the one public client class, and each of its calls carries its whole contract in its doc comment.
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { TurnInputMessage } from "@turnkit/agent-core";
import { type ActionAnswer, type RuntimeEvent, type TurnOutcome, validateActionAnswer } from "@turnkit/protocol";
import pg from "pg";
import {
  APPROVAL_TOPIC,
  DEFAULT_APP_NAME,
  DEFAULT_APP_VERSION,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_QUEUE_NAME,
  DEFAULT_SCHEMA,
  OUTCOME_POLL_MS,
  DEFAULT_READ_LIMIT,
  MAX_READ_LIMIT,
  DEFAULT_SESSION_PAGE,
  MAX_SESSION_PAGE,
  TURN_WORKFLOW_NAME,
} from "./defaults.js";
import {
  assertOptionalNames,
  assertStorableText,
  assertTurnInputMessage,
  countOption,
  jsonTextOf,
  millisecondsOption,
  optionsOf,
  seqOption,
  signalOption,
} from "./client-input.js";
import { saysNothing } from "@turnkit/agent-core/internal";
import { invalidInput, requestWithdrawn, unknownRequest, unknownTurn, workflowFailure } from "./errors.js";
import { type FollowOptions, followLog } from "./reading/follow-log.js";
import { LogNotifications } from "./reading/log-notifications.js";
import { workflowEndedWithoutOutcome } from "./reading/workflow-ending.js";
import { ABORT_NOTICE, abortNoticeKey, type ApprovalMessage } from "./steps/approval-wait.js";
import { answeredWithin, asDatabaseUnavailable, checkDatabaseReachable } from "./store/database-check.js";
import { CancelledTurns } from "./store/cancelled-turn.js";
import { listenForConnectionErrors } from "./store/connection-errors.js";
import { EventLog } from "./store/event-log.js";
import { ResendingPool } from "./store/resending-pool.js";
import { HostRequests } from "./store/host-requests.js";
import { SessionCatalog, type SessionPage, type SessionTurn } from "./store/session-catalog.js";
import { migrateSchema } from "./store/schema.js";
import { idleTimeoutFor } from "./store/idle-timeout.js";
import { type SteerAnswer, SteeringInbox } from "./store/steering-inbox.js";
import { TurnTable } from "./store/turn-table.js";
import { workerIdOfExecutor } from "./workers/executor-id.js";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assertSessionId,
  assertValidLabel,
  assertValidTurnRequest,
  type DurableTurnRef,
  type DurableTurnRequest,
  type TurnAddress,
  turnRef,
} from "./turn/turn-request.js";

/** Where the durable turns live; workers and clients of one deployment use the same values. */
export interface DurableTurnsConnection {
  /** Postgres connection string; DBOS keeps its tables in schema `dbos`, ours go to `schema`. */
  databaseUrl: string;
  /** DBOS application name. Default `"turnkit"`. */
  appName?: string;
  /** Application version of the turns; workers run only turns of their own version. Default `"turnkit-durable-5"`. */
  appVersion?: string;
  /** The DBOS queue turns go through. Default `"turnkit-turns"`. */
  queueName?: string;
  /** Postgres schema of the event log and turn tables. Default `"turnkit_durable"`. */
  schema?: string;
  /**
   * How long opening a connection to Postgres may take, in ms: `connect`
   * and `launch` reject with `database_unavailable` when the server has not
   * accepted one by then. Default 10 s. A client's later calls wait no
   * longer than this for a connection either.
   */
  connectTimeoutMs?: number;
  /**
   * How long a client call waits for the database to answer one statement,
   * in ms: a call whose statement the server has not answered by then (a
   * server that stopped answering, a network that drops everything)
   * rejects with `database_unavailable`. What it had sent may still take
   * effect when the server answers again. Default 30 s; give more to read
   * very long logs in one `readEvents`. A worker's statements for its turns
   * are given up after as long (their connection closed), and the turn is
   * handed back to the queue, to go on from its records.
   */
  queryTimeoutMs?: number;
}

/** The fields of {@link DurableTurnsConnection} that name parts of a deployment: each a non-empty string when given. */
export const CONNECTION_NAMES = ["appName", "appVersion", "queueName", "schema"] as const;

/** `connection.connectTimeoutMs`, or its default; throws `invalid_input` naming it unless a positive number. */
export function connectTimeoutOf(connection: DurableTurnsConnection): number {
  return millisecondsOption(connection.connectTimeoutMs, "connectTimeoutMs", DEFAULT_CONNECT_TIMEOUT_MS);
}

/** `connection.queryTimeoutMs`, or its default; throws `invalid_input` naming it unless a positive number. */
export function queryTimeoutOf(connection: DurableTurnsConnection): number {
  return millisecondsOption(connection.queryTimeoutMs, "queryTimeoutMs", DEFAULT_QUERY_TIMEOUT_MS);
}

/** How a client reaches its database, and how long it waits for it. */
interface DatabaseLimits {
  databaseUrl: string;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/** What {@link DurableTurnClient.status} reports. */
export type DurableTurnStatus =
  | { state: "queued" | "finished" | "failed" }
  | { state: "running"; workerId: string | undefined };

/**
 * Talks to durable turns from any process sharing the database: start,
 * steer, answer approvals, abort, read and follow the event log, wait for
 * outcomes. It runs no turn itself (that is a {@link DurableTurnWorker}'s
 * job), so a web server or a CLI can use it without launching DBOS.
 * A statement the database cut by ending its connection (a restart, a
 * failover) is sent again on a new one; each is safe to send twice. A
 * database that cannot be reached or stops answering makes a call reject
 * with `database_unavailable` within `connectTimeoutMs` (a connection) or
 * `queryTimeoutMs` (a statement; a transaction it cuts is not rolled back
 * on that connection, which is closed: the server rolls it back), never
 * wait forever.
 */
export class DurableTurnClient {
  private constructor(
    private readonly dbos: DBOSClient,
    private readonly pool: pg.Pool,
    private readonly eventLog: EventLog,
    private readonly turnTable: TurnTable,
    private readonly steering: SteeringInbox,
    private readonly hostRequests: HostRequests,
    private readonly sessions: SessionCatalog,
    private readonly notifications: LogNotifications,
    private readonly cancelledTurns: CancelledTurns,
    /** Every pool this client opened (ours and the one DBOS uses). */
    private readonly pools: pg.Pool[],
    private readonly settings: Required<
      Omit<DurableTurnsConnection, "databaseUrl" | "connectTimeoutMs" | "queryTimeoutMs">
    >,
    private readonly limits: DatabaseLimits,
  ) {}

  /**
   * Connects and creates the durable tables when missing. Rejects with
   * `invalid_input` for a missing `databaseUrl`, a name (`appName`,
   * `appVersion`, `queueName`, `schema`) that is not a non-empty string or a
   * `connectTimeoutMs` or `queryTimeoutMs` that is not a positive number, and with
   * `database_unavailable` (naming the URL without its password, and why)
   * within `connectTimeoutMs` when Postgres cannot be reached, does not
   * answer, refuses the credentials or has no such database; a rejected
   * connect leaves no connection open.
   */
  static async connect(connection: DurableTurnsConnection): Promise<DurableTurnClient> {
    if (typeof connection?.databaseUrl !== "string" || connection.databaseUrl === "")
      throw invalidInput("databaseUrl must be a Postgres connection string");
    assertOptionalNames(connection, CONNECTION_NAMES);
    const connectTimeoutMs = connectTimeoutOf(connection);
    const queryTimeoutMs = queryTimeoutOf(connection);
    await checkDatabaseReachable(connection.databaseUrl, connectTimeoutMs);
    const limits = { databaseUrl: connection.databaseUrl, connectTimeoutMs, queryTimeoutMs };
    // Neither a connection nor a statement waits without end for a server that stopped answering; a connection
    // that died idle costs one statement's timeout, not one per idle connection (see `idleTimeoutFor`).
    const bounded = {
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
      idleTimeoutMillis: idleTimeoutFor(queryTimeoutMs),
    };
    const settings = {
      appName: connection.appName ?? DEFAULT_APP_NAME,
      appVersion: connection.appVersion ?? DEFAULT_APP_VERSION,
      queueName: connection.queueName ?? DEFAULT_QUEUE_NAME,
      schema: connection.schema ?? DEFAULT_SCHEMA,
    };
    const pool = listenForConnectionErrors(
      new ResendingPool({ connectionString: connection.databaseUrl, max: 5, ...bounded }),
    );
    const pools: pg.Pool[] = [pool];
    try {
      await migrateSchema(pool, settings.schema).catch((error) => {
        throw asDatabaseUnavailable(error, connection.databaseUrl, queryTimeoutMs);
      });
      // Our own pool for DBOS too, so closing the client closes every connection it opened.
      const dbosPool = listenForConnectionErrors(
        new pg.Pool({ connectionString: connection.databaseUrl, max: 4, ...bounded }),
      );
      pools.push(dbosPool);
      const dbos = await DBOSClient.create({
        systemDatabaseUrl: connection.databaseUrl,
        systemDatabasePool: dbosPool,
        applicationName: settings.appName,
      });
      return new DurableTurnClient(
        dbos,
        pool,
        new EventLog(pool, settings.schema),
        new TurnTable(pool, settings.schema),
        new SteeringInbox(pool, settings.schema),
        new HostRequests(pool, settings.schema),
        new SessionCatalog(pool, settings.schema, settings.queueName),
        new LogNotifications(connection.databaseUrl, connectTimeoutMs, queryTimeoutMs),
        new CancelledTurns(pool, settings.schema),
        pools,
        settings,
        limits,
      );
    } catch (error) {
      await Promise.all(pools.map((p) => p.end().catch(() => {})));
      throw error;
    }
  }

  /**
   * Starts a turn (queued; a worker runs it when the session has no other
   * turn running and a slot is free). Starting the same session and turn id
   * again returns the same turn and starts nothing. Throws `invalid_input`
   * naming the field for a malformed request (a user message the runner
   * would refuse, metadata that is not plain JSON), before anything is stored.
   */
  async start(request: DurableTurnRequest): Promise<DurableTurnRef> {
    return this.answering(async () => {
      assertValidTurnRequest(request);
      const ref = turnRef(request);
      const stored: DurableTurnRequest = JSON.parse(jsonTextOf(request, "the turn request"));
      // Queued first, recorded after: a start that dies in between leaves a queued turn, whose worker records it
      // (never a recorded turn that nothing will run, which kept its session busy for good).
      await this.bounded(
        this.dbos.enqueue(
          {
            queueName: this.settings.queueName,
            workflowName: TURN_WORKFLOW_NAME,
            workflowID: ref.workflowId,
            queuePartitionKey: ref.sessionId,
            appVersion: this.settings.appVersion,
          },
          stored,
        ),
      );
      await this.turnTable.insertTurn(ref, request);
      return ref;
    });
  }

  /**
   * Sends a steering message: the turn takes it at its next step boundary
   * and the log records it (`debug.trace` `durable.steering`). Refused with
   * `{ accepted: false, reason: "closed" }` once the turn closed its intake
   * (it ended, or was about to), and with `reason: "aborted"` once an abort
   * of the turn was requested: start a new turn with the message instead.
   * An accepted message is never lost: the turn takes it, or, when the
   * turn ends first (an abort or a failure), its outcome and terminal
   * status hand it back in `undeliveredMessages`. Throws `unknown_turn`, and
   * `invalid_input` naming the field for a message the turn could not take
   * (checked before it is queued, so a bad message never fails the turn),
   * or one that says nothing (text empty or only whitespace, no image).
   */
  async steer(turn: TurnAddress, message: TurnInputMessage): Promise<SteerAnswer> {
    return this.answering(async () => {
      assertTurnInputMessage(message, "message");
      // The turn would leave it out (a provider drops or refuses it): accepted, it would be neither taken nor handed back.
      if (saysNothing(message))
        throw invalidInput("message.text is empty (or only whitespace) and there are no images");
      const ref = await this.known(turn);
      return this.steering.steer(ref.workflowId, message);
    });
  }

  /**
   * Answers a request of a turn (an `action.required` event), from any
   * process, whether or not the asking worker still runs: an approval of a
   * tool call (`{ approved }`), or what a tool call asked the host through
   * `ctx.askHost` (an elicitation: `{ action: "accept", content }`,
   * `{ action: "decline" }`, `{ action: "cancel" }`). The answer must fit
   * the request's kind. The first answer to a request wins; later ones are
   * ignored. Throws `invalid_input` for a `requestId` that is not a
   * non-empty string or an answer that does not fit,
   * `unknown_turn`, `unknown_request` when the turn never asked it, or
   * `request_withdrawn` for a stored request the turn withdrew (a tool's
   * question, or a sub-agent's approval: the call that asked was
   * interrupted by a restart and not run again, or the turn was cancelled,
   * as an abort that finds it queued does); its message says which.
   */
  async respond(turn: TurnAddress, requestId: string, answer: ActionAnswer): Promise<void> {
    return this.answering(async () => {
      if (typeof requestId !== "string" || requestId === "") throw invalidInput("requestId must be a non-empty string");
      assertStorableText(requestId, "requestId");
      if (typeof answer !== "object" || answer === null) throw invalidInput("answer must be an object");
      const ref = await this.known(turn);
      // Asked by a tool call: the answer is stored, and the waiting call takes it.
      const asked = await this.hostRequests.requestOf(ref.workflowId, requestId);
      if (asked !== undefined) {
        const checked = validateActionAnswer(asked.kind, answer);
        if (!checked.ok)
          throw invalidInput(`answer does not fit the ${asked.kind} request ${requestId}: ${checked.errors[0]}`);
        if (asked.withdrawn || !(await this.hostRequests.answer(ref.workflowId, requestId, checked.answer))) {
          const cancelled = (await this.cancelledTurns.closedOutcome(ref.workflowId)) !== undefined;
          throw requestWithdrawn(ref.turnId, requestId, cancelled);
        }
        return;
      }
      if (!(await this.eventLog.hasActionRequest(ref.workflowId, requestId)))
        throw unknownRequest(ref.turnId, requestId);
      const checked = validateActionAnswer("tool_approval", answer);
      if (!checked.ok) throw invalidInput(`answer.approved must be true or false (${checked.errors[0]})`);
      const message: ApprovalMessage = { kind: "decision", requestId, decision: checked.answer };
      await this.bounded(this.dbos.send(ref.workflowId, message, APPROVAL_TOPIC, `${ref.workflowId}/${requestId}`));
    });
  }

  /**
   * Aborts a turn from any process: the running model request or tool call
   * is stopped, a waiting approval ends, the turn ends `aborted` with every
   * call answered. A turn still queued (behind its session's running turn,
   * or waiting for a worker) is taken out of the queue and ends `aborted`
   * at once, without running: its user message is handed back in the
   * outcome's `undeliveredMessages`. A finished turn is unaffected. Throws
   * `unknown_turn`. Its request and its notice commit together: when the
   * call rejects, neither is stored.
   */
  async abort(turn: TurnAddress): Promise<void> {
    return this.answering(async () => {
      const { workflowId } = await this.known(turn);
      await this.turnTable.requestAbort(workflowId, (db) =>
        this.dbos.sendInTransaction(db, workflowId, ABORT_NOTICE, APPROVAL_TOPIC, abortNoticeKey(workflowId)),
      );
      // Still queued: cancelled in the queue and ended now, not once its session's previous turn ends.
      // A worker that took it meanwhile loses it to the cancel, which ends it aborted all the same.
      const workflow = await this.bounded(this.dbos.getWorkflow(workflowId));
      if (workflow?.status === "ENQUEUED" || workflow?.status === "DELAYED") {
        await this.bounded(this.dbos.cancelWorkflow(workflowId));
        await this.cancelledTurns.close(workflowId);
      }
    });
  }

  /**
   * The logged events of a turn with `seq > afterSeq`, in order, at most
   * `limit` (default 10,000). Throws `invalid_input` naming the option for
   * an `afterSeq` that is not an integer from 0 or a `limit` that is not
   * one from 1.
   */
  async readEvents(turn: TurnAddress, options?: { afterSeq?: number; limit?: number }): Promise<RuntimeEvent[]> {
    return this.answering(async () => {
      const { workflowId } = turnRef(turn);
      const { afterSeq, limit } = optionsOf(options, "options");
      return this.eventLog.read(
        workflowId,
        seqOption(afterSeq, "afterSeq"),
        countOption(limit, "limit", DEFAULT_READ_LIMIT, MAX_READ_LIMIT),
      );
    });
  }

  /**
   * Every logged event of a turn after `afterSeq`, then new ones as they
   * are written, in seq order with no gap and no repeat; ends after the
   * terminal `session.status` (at once when the log ended at or before
   * `afterSeq`: a reader reconnecting after it saw the ending; or when
   * `signal` fires), and rejects as
   * `outcome` does once the turn's workflow ended without one. A reader that
   * reconnects with the last seq it saw continues exactly after it. Rejects
   * with `unknown_turn` for a turn never started (instead of waiting for it
   * forever), and `invalid_input` naming the option for an `afterSeq` that
   * is not an integer from 0 or a `signal` that is not an `AbortSignal`.
   */
  async *follow(turn: TurnAddress, options?: FollowOptions): AsyncGenerator<RuntimeEvent> {
    const ref = turnRef(turn);
    const given = optionsOf(options, "options");
    const afterSeq = seqOption(given.afterSeq, "afterSeq");
    const signal = signalOption(given.signal, "signal");
    const failure = () =>
      workflowEndedWithoutOutcome(this.dbos, this.cancelledTurns, ref.workflowId, (work) => this.bounded(work));
    try {
      await this.known(turn);
      yield* followLog(this.eventLog, this.notifications, ref.workflowId, { afterSeq, signal, failure });
    } catch (error) {
      throw this.classified(error);
    }
  }

  /**
   * Where a turn is now: `queued` (waiting for a worker, or for its
   * session's previous turn), `running` on `workerId`, `finished`, or
   * `failed` when its workflow itself failed (not a turn that ended
   * `failed`: that one is `finished`). A turn whose workflow was cancelled
   * with DBOS's tools is `finished`: it is ended as aborted (here, when no
   * worker did yet). Throws `unknown_turn`.
   */
  async status(turn: TurnAddress): Promise<DurableTurnStatus> {
    return this.answering(async () => {
      const ref = await this.known(turn);
      const workflow = await this.bounded(this.dbos.getWorkflow(ref.workflowId));
      switch (workflow?.status) {
        case "CANCELLED":
          await this.cancelledTurns.close(ref.workflowId);
          return { state: "finished" };
        case undefined:
        case "ENQUEUED":
        case "DELAYED":
          return { state: "queued" };
        case "PENDING":
          return { state: "running", workerId: workflow.executorId && workerIdOfExecutor(workflow.executorId) };
        case "SUCCESS":
          return { state: "finished" };
        default:
          return { state: "failed" };
      }
    });
  }

  /**
   * Waits for the turn's outcome, looking every `pollingIntervalMs`
   * (default 100). Rejects with `invalid_input` for a `pollingIntervalMs`
   * that is not a positive number, `unknown_turn` for a turn never started,
   * and, when the workflow itself ended without an outcome, with the
   * `DurableTurnError` it failed with (`log_write`, `history_write`) or
   * `workflow_failed` (DBOS's error as `cause`).
   */
  async outcome(turn: TurnAddress, options?: { pollingIntervalMs?: number }): Promise<TurnOutcome> {
    const given = optionsOf(options, "options");
    const pollingIntervalMs = millisecondsOption(given.pollingIntervalMs, "pollingIntervalMs", OUTCOME_POLL_MS);
    return this.answering(async () => {
      const ref = await this.known(turn);
      // Looked at every pollingIntervalMs, each look bounded (DBOS's own wait retries without end).
      for (;;) {
        const workflow = await this.bounded(this.dbos.getWorkflow(ref.workflowId));
        if (workflow?.status === "SUCCESS")
          return this.bounded(this.dbos.retrieveWorkflow<TurnOutcome>(ref.workflowId).getResult());
        if (workflow !== undefined && !["ENQUEUED", "DELAYED", "PENDING"].includes(workflow.status)) {
          const failed = await workflowEndedWithoutOutcome(this.dbos, this.cancelledTurns, ref.workflowId, (work) =>
            this.bounded(work),
          );
          if (failed !== undefined) throw failed;
          // Cancelled with DBOS's tools: ended as aborted now (or kept the outcome its log ended with).
          const closed = await this.turnTable.outcome(ref.workflowId);
          if (closed !== undefined) return closed;
        }
        await new Promise((resolve) => setTimeout(resolve, pollingIntervalMs));
      }
    });
  }

  /**
   * Sessions, newest first (made by a first start or a fork), `limit` per page (default 50, at most 500);
   * a page's `next` is the following page's `after`. Throws `invalid_input` for a bad limit or cursor.
   */
  async listSessions(options?: { limit?: number; after?: string }): Promise<SessionPage> {
    return this.answering(async () => {
      const given = optionsOf(options, "options");
      const limit = countOption(given.limit, "limit", DEFAULT_SESSION_PAGE, MAX_SESSION_PAGE);
      const { after } = given;
      if (after !== undefined && typeof after !== "string")
        throw invalidInput("after must be the next cursor of an earlier page");
      return this.sessions.list(limit, after);
    });
  }

  /**
   * A session's turns in start order, each with its state, outcome, label, and whether it is still in the
   * history the next turn sees. Throws `unknown_session`.
   */
  async listTurns(sessionId: string): Promise<SessionTurn[]> {
    return this.answering(async () => {
      return this.sessions.turns(assertSessionId(sessionId));
    });
  }

  /** A session's history as its next turn will see it (after forks and rewinds). Throws `unknown_session`. */
  async readHistory(sessionId: string): Promise<AgentMessage[]> {
    return this.answering(async () => {
      return this.sessions.history(assertSessionId(sessionId));
    });
  }

  /**
   * Sets a turn's label (`undefined` clears it). Throws `unknown_turn`, or `invalid_input` for a label
   * that is not a string of at most 200 characters.
   */
  async labelTurn(turn: TurnAddress, label: string | undefined): Promise<void> {
    return this.answering(async () => {
      if (label !== undefined) assertValidLabel(label);
      const ref = turnRef(turn);
      if (!(await this.sessions.label(ref.workflowId, label))) throw unknownTurn(ref);
    });
  }

  /**
   * Makes a new session, `intoSessionId`, whose history is `at`'s session's history as it stood when turn
   * `at` finished; the original is not changed, and turns of either may run meanwhile. All or nothing.
   * Throws `unknown_session`, `unknown_turn`, `turn_not_finished`, `turn_not_in_history` (rewound away,
   * or replaced by a later compaction), `session_exists`.
   */
  async fork(at: TurnAddress, intoSessionId: string): Promise<void> {
    return this.answering(async () => {
      const { sessionId, workflowId, turnId } = turnRef(at);
      await this.sessions.fork(sessionId, workflowId, turnId, assertSessionId(intoSessionId, "intoSessionId"));
    });
  }

  /**
   * Rewinds `to`'s session to turn `to`: the next turn sees the history as it stood when `to` finished.
   * The later turns' events stay readable; `listTurns` shows them with `inHistory: false`. All or
   * nothing. Throws `unknown_session`, `unknown_turn`, `turn_not_finished`, `turn_not_in_history`, and
   * `session_busy` while a turn of the session is queued or running.
   */
  async rewind(to: TurnAddress): Promise<void> {
    return this.answering(async () => {
      const ref = turnRef(to);
      await this.sessions.rewind(ref.sessionId, ref.workflowId, ref.turnId);
    });
  }

  /** Closes every connection; the client is unusable afterwards. */
  async close(): Promise<void> {
    await this.notifications.close();
    await this.bounded(this.dbos.destroy()).catch(() => {});
    await Promise.all(this.pools.map((pool) => pool.end().catch(() => {})));
  }

  /**
   * The turn, once it is sure it was started: it has its row, or DBOS has
   * its workflow (a start that died between queueing the turn and recording
   * it left a turn that runs all the same), which is then recorded here as
   * its worker would, so every call treats it as any started turn.
   */
  /** Runs one call: an error saying the database could not be reached or did not answer becomes `database_unavailable`. */
  private async answering<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.classified(error);
    }
  }

  private classified(error: unknown): unknown {
    return asDatabaseUnavailable(error, this.limits.databaseUrl, this.limits.queryTimeoutMs);
  }

  /** A call of DBOS's client, which retries a statement the database does not answer without end: given up after the query timeout. */
  private bounded<T>(work: Promise<T>): Promise<T> {
    return answeredWithin(work, this.limits.databaseUrl, this.limits.queryTimeoutMs);
  }

  private async known(turn: TurnAddress): Promise<DurableTurnRef> {
    const ref = turnRef(turn);
    if (await this.turnTable.exists(ref.workflowId)) return ref;
    const workflow = await this.bounded(this.dbos.getWorkflow(ref.workflowId));
    const request = workflow?.input?.[0] as DurableTurnRequest | undefined;
    if (workflow === undefined || typeof request !== "object" || request === null) throw unknownTurn(ref);
    await this.turnTable.insertTurn(ref, request);
    return ref;
  }
}
