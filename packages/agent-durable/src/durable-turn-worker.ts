// Why this file is long: the launch and the shutdown of a worker set up and take down the same things (pools, lease, DBOS, watchers), in mirrored order, and read best side by side.
import { hostname } from "node:os";
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import {
  APPROVAL_TOPIC,
  DBOS_SYSTEM_SCHEMA,
  DEFAULT_APP_NAME,
  DEFAULT_APP_VERSION,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_QUEUE_NAME,
  DEFAULT_SCHEMA,
  DEFAULT_WORKER_CONCURRENCY,
  DEFAULT_WORKER_LEASE_MS,
  DEFAULT_QUEUE_POLLING_INTERVAL_MS,
  TURN_WORKFLOW_NAME,
} from "./defaults.js";
import { assertOptionalNames, countOption, millisecondsOption } from "./client-input.js";
import {
  CONNECTION_NAMES,
  connectTimeoutOf,
  DurableTurnClient,
  queryTimeoutOf,
  type DurableTurnsConnection,
} from "./durable-turn-client.js";
import { DurableTurnError, DurableTurnErrorCode, invalidInput } from "./errors.js";
import { CancelledTurns } from "./store/cancelled-turn.js";
import { ConnectionSockets } from "./store/connection-sockets.js";
import { answeredWhileSocketsWait, asDatabaseUnavailable, checkDatabaseReachable } from "./store/database-check.js";
import { EventLog } from "./store/event-log.js";
import type { HandBackTurn, HandingBackPool } from "./store/handing-back-pool.js";
import { migrateDatabase } from "./store/schema.js";
import { SessionHistory } from "./store/session-history.js";
import { SteeringInbox } from "./store/steering-inbox.js";
import { StepRecords } from "./store/step-records.js";
import { HostRequests } from "./store/host-requests.js";
import { TurnTable } from "./store/turn-table.js";
import type { BuildDurableTurn } from "./turn/durable-turn-setup.js";
import type { TurnContext } from "./turn/turn-context.js";
import type { DurableTurnRequest } from "./turn/turn-request.js";
import { runTurnWorkflow, type TurnWorkflowDeps } from "./turn/turn-workflow.js";
import { ABORT_NOTICE, abortNoticeKey } from "./steps/approval-wait.js";
import { AbortWatcher } from "./workers/abort-watcher.js";
import { CancelledTurnSweep } from "./workers/cancelled-turn-sweep.js";
import { FAULT_POINT_ENV } from "./workers/fault-point.js";
import {
  endedTurnsPendingOf,
  requeueOrphanedTurns,
  requeueTurnsFromBeforeServerStart,
  requeueTurnsOf,
} from "./workers/requeue-turns.js";
import { launchExecutorId } from "./workers/executor-id.js";
import { WorkerLease } from "./workers/worker-lease.js";
import { workerPools } from "./workers/worker-pools.js";

/** Options of {@link DurableTurnWorker.launch}. */
export interface DurableTurnWorkerOptions extends DurableTurnsConnection {
  /** Builds each turn's model, tools and hooks from its request (see `BuildDurableTurn`). */
  buildTurn: BuildDurableTurn;
  /**
   * This worker's identity. A worker launched with the id of one that died
   * queues that one's interrupted turns again at launch (this worker or
   * another takes them up at once); keep it stable per worker slot (e.g.
   * `worker-1`). Default: `<hostname>-<pid>`, which never repeats, so its
   * turns are recovered by other workers after the lease. Each launch runs
   * under a DBOS executor id of its own (`<workerId>#<8 hex digits>`), so a
   * process of the same id that was only frozen and wakes up runs under its
   * own lease, and its turns are taken over when it dies.
   */
  workerId?: string;
  /**
   * Turns one worker process runs at once. Default 8. DBOS stores it with
   * the queue, so the worker launched last sets it for every worker: give
   * all workers of a deployment the same value.
   */
  concurrency?: number;
  /** How long an approval waits before the call is blocked. Default one day. */
  approvalTimeoutMs?: number;
  /** A worker silent for longer than this is presumed dead and its turns are recovered by others. Default 15 s. */
  leaseMs?: number;
  /**
   * How often this worker looks at the turn queue when it has a free slot,
   * in ms: a started turn waits half of it on average before a worker takes
   * it. Default 20. DBOS stores it with the queue, like `concurrency`: give
   * all workers of a deployment the same value.
   */
  queuePollingIntervalMs?: number;
  /** DBOS's log level (`error`, `warn`, `info`, `debug`). Default `error`. */
  logLevel?: string;
}

let launchedInThisProcess = false;

/**
 * Runs durable turns in this process: launches DBOS on the database, takes
 * turns from the shared queue (at most `concurrency` here, at most one per
 * session anywhere), recovers turns of dead workers, and watches for abort
 * requests. DBOS is a process-wide singleton, so one worker per process.
 *
 * ```ts
 * const worker = await DurableTurnWorker.launch({ databaseUrl, buildTurn });
 * const turn = await worker.client.start({ sessionId: "s1", turnId: "t1", userMessage: { text: "Hi" } });
 * for await (const event of worker.client.follow(turn)) console.log(event.seq, event.type);
 * ```
 */
export class DurableTurnWorker {
  private constructor(
    /** A client on the same database, for starting and following turns from this process. */
    readonly client: DurableTurnClient,
    /** This worker's DBOS executor id. */
    readonly workerId: string,
    /**
     * The worker's own pools (control rows; the writes that do not wait for the disk; DBOS's; the heartbeat's),
     * the sockets of their connections, and how long a statement may go unanswered.
     */
    private readonly connections: WorkerConnections,
    private readonly lease: WorkerLease,
    private readonly abortWatcher: AbortWatcher,
    private readonly cancelledSweep: CancelledTurnSweep,
    /** How many turns running here have logged their ending, with their outcome not yet recorded; and how long to wait for them. */
    private readonly endings: { pending: () => Promise<number>; waitMs: number },
  ) {}

  /**
   * Creates the tables when missing (one process at a time: any number of
   * workers may launch together, on an empty or an existing database),
   * takes this worker's lease, registers the turn workflow, launches DBOS
   * and the queue, recovers this worker's own interrupted turns, and starts
   * taking turns. Rejects with `invalid_input` for bad options,
   * `worker_state` when this process already runs a worker, and
   * `database_unavailable` (naming the URL without its password, and why)
   * within `connectTimeoutMs` when Postgres cannot be reached, does not
   * answer, refuses the credentials or has no such database; nothing is
   * left running or open then.
   */
  static async launch(options: DurableTurnWorkerOptions): Promise<DurableTurnWorker> {
    const settings = resolveOptions(options);
    if (launchedInThisProcess) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.WorkerState,
        message: "this process already runs a DurableTurnWorker (DBOS is one per process)",
      });
    }
    launchedInThisProcess = true;
    // One look at the database first: an unreachable one is one typed error before anything else is set up.
    const serverVersion = await checkDatabaseReachable(options.databaseUrl, settings.connectTimeoutMs).catch(
      (error) => {
        launchedInThisProcess = false;
        throw error;
      },
    );
    const sockets = new ConnectionSockets();
    const running = new Set<TurnContext>();
    const { pools, pool, behindCheckpointPool, logPool, dbosPool, beatPool, handBack } = workerPools(
      options.databaseUrl,
      settings,
      sockets,
      serverVersion,
      { claims: () => [...running].map((ctx) => ctx.claim), stopped: () => lease.stopped },
    );
    const lease = new WorkerLease({
      pool,
      beatPool,
      schema: settings.schema,
      workerId: settings.workerId,
      executorId: settings.executorId,
      leaseMs: settings.leaseMs,
      connectTimeoutMs: settings.connectTimeoutMs,
      requeueTurnsOf: (db, executorId) => requeueTurnsOf(db, executorId, settings),
      requeueOrphanedTurns: (db, workersTable) => requeueOrphanedTurns(db, workersTable, settings),
      requeueTurnsFromBeforeServerStart: (db, workersTable) =>
        requeueTurnsFromBeforeServerStart(db, workersTable, settings),
      faultPoint: settings.faultPoint,
    });
    const stores = {
      eventLog: new EventLog(behindCheckpointPool, settings.schema, { pool: logPool, handBack }),
      turnTable: new TurnTable(pool, settings.schema),
      steering: new SteeringInbox(behindCheckpointPool, settings.schema, settings.faultPoint),
      history: new SessionHistory(behindCheckpointPool, settings.schema, { pool: logPool, handBack }),
      hostRequests: new HostRequests(pool, settings.schema),
      stepRecords: new StepRecords(behindCheckpointPool),
      cancelledTurns: new CancelledTurns(pool, settings.schema),
    };
    const launching = { abandoned: false };
    let client: DurableTurnClient | undefined;
    try {
      // Everything that waits for the database, each statement within one statement's timeout: a database that
      // stops answering after the first look makes the launch fail, not hang (DBOS itself retries a statement
      // without end). Before, the whole launch had that one statement's time, and a slow database failed it.
      await answeredWhileSocketsWait(
        setUpWorker({ options, settings, pool, dbosPool, lease, stores, running, launching, handBack }),
        launchWatch(sockets, options.databaseUrl, settings),
      );
      // The worker's own client, for starting and following turns from this process (bounded by its own timeouts).
      client = await DurableTurnClient.connect(options);
      lease.start();
      const abortWatcher = new AbortWatcher(stores.turnTable, running, (workflowId) =>
        DBOS.send(workflowId, ABORT_NOTICE, APPROVAL_TOPIC, abortNoticeKey(workflowId)),
      );
      abortWatcher.start();
      const cancelledSweep = new CancelledTurnSweep(stores.cancelledTurns);
      cancelledSweep.start();
      const connections = {
        pools,
        sockets,
        databaseUrl: options.databaseUrl,
        queryTimeoutMs: settings.queryTimeoutMs,
        watch: launchWatch(sockets, options.databaseUrl, settings),
      };
      const endings = {
        pending: () => endedTurnsPendingOf(pool, settings.executorId, settings),
        waitMs: Math.min(settings.queryTimeoutMs, settings.leaseMs / 4),
      };
      return new DurableTurnWorker(
        client,
        settings.workerId,
        connections,
        lease,
        abortWatcher,
        cancelledSweep,
        endings,
      );
    } catch (error) {
      launching.abandoned = true;
      lease.stop();
      lease.leave();
      // Nothing waits for a database that does not answer: every connection is closed under its statements.
      const ended = Promise.all(pools.map((each) => each.end().catch(() => {})));
      sockets.destroyAll();
      await client?.close().catch(() => {});
      await settledWithin(DBOS.shutdown({ deregister: true }), settings.connectTimeoutMs);
      await settledWithin(ended, settings.connectTimeoutMs);
      sockets.destroyAll();
      launchedInThisProcess = false;
      throw asDatabaseUnavailable(error, options.databaseUrl, settings.queryTimeoutMs);
    }
  }

  /**
   * Stops taking turns, hands the turns running here back and closes every
   * connection. Each turn still running here is interrupted as in a crash
   * (what it had started stays started) and goes on in another worker at
   * once: it is queued again, and the execution here, whose claim that
   * revokes, writes nothing more and records no ending. A turn whose
   * ending is already logged (its `follow` has ended) is not handed back:
   * `shutdown` first waits, up to a quarter lease, for it to record its
   * outcome.
   *
   * A database that does not answer is not waited for: when a stage of the
   * hand-back (queueing the turns again, stopping DBOS) has not finished
   * within `queryTimeoutMs`, every connection is closed under its
   * statements all the same, and `shutdown` rejects with
   * `database_unavailable`; the turns that were running here are then taken
   * over once the worker's lease expired, as after a crash. Either way the
   * process may launch a worker again afterwards.
   */
  async shutdown(): Promise<void> {
    // First: from here on no effect starts, and a turn taken from the queue does not run here.
    this.lease.stop();
    this.abortWatcher.stop();
    this.cancelledSweep.stop();
    const { pools, sockets, databaseUrl, queryTimeoutMs, watch } = this.connections;
    // Each stage that waits for the database, each of its statements within one statement's timeout.
    const answered = <T>(work: Promise<T>) => answeredWhileSocketsWait(work, watch);
    let dbosStopping: Promise<void> | undefined;
    let unanswered: unknown;
    // A turn that logged its ending has only its outcome left to record. Handed back, it would run again elsewhere,
    // every step from its record, while DBOS refused the execution here its outcome. The wait stays within the lease.
    await settledWithin(untilNoneLeft(this.endings.pending, this.endings.waitMs), this.endings.waitMs);
    try {
      // Before DBOS stops, so no step here ends with a claim that still holds once DBOS can record nothing; and again
      // after it, for a turn DBOS took from the queue meanwhile (which does not run here).
      await answered(this.lease.release());
      dbosStopping = DBOS.shutdown({ deregister: true });
      await answered(dbosStopping);
      await answered(this.lease.release());
    } catch (error) {
      unanswered = error;
      // Given up on the database: nothing waits for it, every connection is closed under its statements, and DBOS
      // (which the hand-back may not have reached) stops with its statements failing at once.
      this.lease.leave();
      sockets.destroyAll();
      await settledWithin(dbosStopping ?? DBOS.shutdown({ deregister: true }), queryTimeoutMs);
    }
    // Only now, the turns handed back: a launch of this worker id that found the lock free before would have taken
    // this live one for gone and queued again a turn still recording its outcome here.
    this.lease.leave();
    const ended = Promise.all(pools.map((pool) => pool.end().catch(() => {})));
    await settledWithin(this.client.close(), queryTimeoutMs);
    // A statement still waiting (for a lock, for a database that stopped answering) is cut.
    await settledWithin(ended, queryTimeoutMs);
    sockets.destroyAll();
    launchedInThisProcess = false;
    if (unanswered !== undefined) throw asDatabaseUnavailable(unanswered, databaseUrl, queryTimeoutMs);
  }
}

/** A worker's own connections: its pools, their sockets, and how long a statement may go unanswered. */
interface WorkerConnections {
  pools: pg.Pool[];
  sockets: ConnectionSockets;
  databaseUrl: string;
  queryTimeoutMs: number;
  /** How the launch and each stage of the shutdown watch the database answer (see `answeredWhileSocketsWait`). */
  watch: Parameters<typeof answeredWhileSocketsWait>[1];
}

/**
 * The watch of work of many statements on the worker's `sockets`: each
 * statement within `queryTimeoutMs`; the whole, for what the sockets do not
 * show, within a connection's time and a statement's.
 */
function launchWatch(
  sockets: ConnectionSockets,
  databaseUrl: string,
  settings: { queryTimeoutMs: number; connectTimeoutMs: number },
): WorkerConnections["watch"] {
  return {
    sockets,
    databaseUrl,
    timeoutMs: settings.queryTimeoutMs,
    capMs: settings.connectTimeoutMs + settings.queryTimeoutMs,
  };
}

/**
 * What `launch` sets up in the database: the tables, this worker's lease,
 * DBOS and the turn queue. Stops before its next stage once `launching` is
 * abandoned (the launch gave up on a database that did not answer).
 */
async function setUpWorker(setup: {
  options: DurableTurnWorkerOptions;
  settings: ReturnType<typeof resolveOptions>;
  /** The worker's control pool, which hands a turn back on a lost connection. */
  pool: HandingBackPool;
  dbosPool: pg.Pool;
  lease: WorkerLease;
  stores: TurnWorkflowDeps["stores"];
  running: Set<TurnContext>;
  launching: { abandoned: boolean };
  handBack: HandBackTurn;
}): Promise<void> {
  const { options, settings, pool, dbosPool, lease, stores, running, launching, handBack } = setup;
  const stage = () => {
    if (launching.abandoned) throw new Error("the launch was given up");
  };
  await migrateDatabase(pool, options.databaseUrl, settings.schema);
  stage();
  const deps: TurnWorkflowDeps = {
    stores,
    buildTurn: options.buildTurn,
    approvalTimeoutMs: settings.approvalTimeoutMs,
    leaseMs: settings.leaseMs,
    lease,
    running,
    faultPoint: settings.faultPoint,
    lostConnection: (error) => pool.lostConnection(error),
    handBack: (execution) => handBack(execution, undefined),
  };
  DBOS.registerWorkflow((request: DurableTurnRequest) => runTurnWorkflow(deps, request), {
    name: TURN_WORKFLOW_NAME,
  });
  DBOS.setConfig({
    name: settings.appName,
    systemDatabaseUrl: options.databaseUrl,
    systemDatabasePool: dbosPool,
    applicationVersion: settings.appVersion,
    executorID: settings.executorId,
    logLevel: settings.logLevel,
    listenQueues: [settings.queueName],
    runMigrations: false,
  });
  // The lease before the first turn: a turn never runs here without a lease others can take over.
  await lease.acquire();
  stage();
  await DBOS.launch();
  stage();
  await DBOS.registerQueue(settings.queueName, {
    workerConcurrency: settings.concurrency,
    partitionConcurrency: 1,
    minPollingIntervalMs: settings.queuePollingIntervalMs,
    onConflict: "always_update",
  });
}

/** Settles once `work` did, or after `ms`, whichever comes first; never rejects. */
/** Resolves once `count` answers 0 (asked every 10 ms), or `ms` after it was first asked. */
async function untilNoneLeft(count: () => Promise<number>, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while ((await count()) > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work.catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function resolveOptions(options: DurableTurnWorkerOptions) {
  if (typeof options !== "object" || options === null)
    throw invalidInput("DurableTurnWorker.launch needs an options object");
  if (typeof options.databaseUrl !== "string" || options.databaseUrl === "")
    throw invalidInput("databaseUrl must be a Postgres connection string");
  if (typeof options.buildTurn !== "function")
    throw invalidInput("buildTurn must be a function (request) => DurableTurnSetup");
  assertOptionalNames(options, [...CONNECTION_NAMES, "workerId", "logLevel"]);
  const concurrency = countOption(
    options.concurrency,
    "concurrency",
    DEFAULT_WORKER_CONCURRENCY,
    Number.MAX_SAFE_INTEGER,
  );
  for (const field of ["approvalTimeoutMs", "leaseMs", "queuePollingIntervalMs"] as const)
    if (options[field] !== undefined) millisecondsOption(options[field], field, 0);
  const workerId = options.workerId ?? `${hostname()}-${process.pid}`;
  return {
    appName: options.appName ?? DEFAULT_APP_NAME,
    appVersion: options.appVersion ?? DEFAULT_APP_VERSION,
    queueName: options.queueName ?? DEFAULT_QUEUE_NAME,
    schema: options.schema ?? DEFAULT_SCHEMA,
    workerId,
    // This launch's own executor id: the turns it takes and its lease are told apart from another process's
    // under the same worker id (see executor-id.ts).
    executorId: launchExecutorId(workerId),
    connectTimeoutMs: connectTimeoutOf(options),
    queryTimeoutMs: queryTimeoutOf(options),
    concurrency,
    approvalTimeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    leaseMs: options.leaseMs ?? DEFAULT_WORKER_LEASE_MS,
    queuePollingIntervalMs: options.queuePollingIntervalMs ?? DEFAULT_QUEUE_POLLING_INTERVAL_MS,
    logLevel: options.logLevel ?? "error",
    // Test-only: a crash point a test arms through the environment (see workers/fault-point.ts).
    faultPoint: process.env[FAULT_POINT_ENV],
  };
}
