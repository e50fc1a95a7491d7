import type { CancelledTurns } from "../store/cancelled-turn.js";
import type { EventLog } from "../store/event-log.js";
import type { HostRequests } from "../store/host-requests.js";
import type { SessionHistory } from "../store/session-history.js";
import type { SteeringInbox, StepSteering } from "../store/steering-inbox.js";
import type { StepRecords, StoredStep } from "../store/step-records.js";
import type { TurnClaim } from "../store/turn-claim.js";
import type { TurnTable } from "../store/turn-table.js";
import type { DurableEventWriter, ResumeRecord } from "./durable-event-writer.js";
import type { LaneResumeRecord } from "./parallel-replay.js";
import type { Lane, StepLanes } from "./step-lanes.js";
import type { HistoryWriter } from "./history-writer.js";
import type { TurnAbort } from "./turn-abort.js";
import type { DurableTurnRef } from "./turn-request.js";

/** The stores a turn writes to. */
export interface TurnStores {
  eventLog: EventLog;
  turnTable: TurnTable;
  steering: SteeringInbox;
  history: SessionHistory;
  /** What tool calls asked the host, and the answers. */
  hostRequests: HostRequests;
  /** The records of the turn's model requests and tool calls (see `runRecordedStep`). */
  stepRecords: StepRecords;
  /** The turns cancelled with DBOS's tools, which the durable layer ends as aborted. */
  cancelledTurns: CancelledTurns;
}

/** What a turn needs of its worker's lease (a `WorkerLease` is one) before an effect outside the database. */
export interface EffectLease {
  /** Whether an effect may start now for a claim confirmed at `confirmedAt` (`performance.now()`); synchronous. */
  coversEffect(confirmedAt: number): boolean;
  /** Whether the lease was carried on recently enough for effects (whatever the claim). */
  isFresh(): boolean;
  /** Carries the lease on now unless it is fresh; resolves once answered or failed; rejects once the worker shut down. */
  renew(): Promise<void>;
  /** True once the worker began to shut down: it hands its turns back, and no effect starts any more. */
  readonly stopped: boolean;
}

/**
 * The state one execution of a durable turn shares between its seams (model
 * requests, tool calls, hooks, steering, approvals). Built fresh for every
 * execution, so a replay starts from the same values; every counter advances
 * in the turn's deterministic order.
 */
export interface TurnContext {
  readonly ref: DurableTurnRef;
  readonly stores: TurnStores;
  /** This execution's claim on the turn: every write carries it; once another worker took the turn over, it writes, sends and runs nothing more. */
  readonly claim: TurnClaim;
  /** The worker's lease: an effect starts only while it covers the claim's last confirmation (see `confirmClaimBeforeEffect`). */
  readonly lease: EffectLease;
  readonly writer: DurableEventWriter;
  /** Stores the turn's history changes in the session history, in order, never skipping one. */
  readonly history: HistoryWriter;
  /** The abort as the turn's records know it; its signal is the runner's (see `TurnAbort`). */
  readonly turnAbort: TurnAbort;
  /** Fired by the worker when an abort is requested while this execution runs a step live. */
  readonly liveAbort: AbortController;
  /** How long an approval waits, in ms (the worker's default, or the turn setup's). */
  approvalTimeoutMs: number;
  /**
   * How recently a check or write must have found the claim held for a
   * model request to be sent or a tool to run without checking it again
   * (see `confirmClaimBeforeEffect`): a quarter of the worker's lease.
   */
  readonly claimFreshMs: number;
  /** A test-only crash point of the worker (see `fault-point.ts`), or undefined. */
  readonly faultPoint: string | undefined;
  /**
   * Steering the steps took since the runner's last poll (see `durableSteeringSource`), and the keys of the
   * takes whose messages the runner received (every other message of the turn is handed back when it ends).
   */
  steering: { pending: StepSteering[]; tookSincePoll: boolean; delivered: number[] };
  /** Counters that name things in turn order: model requests, steering polls, message ids (a sub-agent turn's by its turn id). */
  readonly counters: { requests: number; polls: number; messages: number; childMessages: Map<string, number> };
  /**
   * Names tool calls for the ids of their approvals (`callIdOccurrences`),
   * as the approval hook sees them in the turn's deterministic order: a
   * call id, or `<id>#<k>` when the model reused it. (What a call asks from
   * its `execute` is named by the runner's `ToolExecutionContext.callKey`.)
   */
  readonly approvalNames: (toolCallId: string, scope: string) => string;
  /** The calls of a parallel batch running now, whose steps take turns (see `StepLanes`). */
  readonly lanes: StepLanes;
  /** What the first step this execution ran live (not from its record) read; every live step waits for the same read. */
  firstLiveRead: Promise<LiveState> | undefined;
  /** The turn's step records as this execution found them at its first recorded step (see `runRecordedStep`). */
  stepRecords?: Promise<Map<number, StoredStep>>;
}

/** What a live step learned before it started: events an interrupted step left, and whether an abort is pending. */
export interface LiveStart {
  resume: ResumeRecord | undefined;
  /** Events an interrupted step of the same lane left, when the step runs in a lane (a parallel call). */
  laneResume?: LaneResumeRecord;
  abortRequested: boolean;
}

/**
 * Called at the start of every model request or tool call that runs live.
 * Each first checks that this execution still holds its claim on the turn
 * (throws `superseded` otherwise), unless the caller checks it itself
 * before any effect (`claimCheckedLater`); after the first live step of
 * the execution, the check also makes every earlier commit durable. The first one of an execution reads whether an abort is pending and the
 * log's highest seq; live steps started meanwhile (parallel calls) wait for
 * the same read, so they all see the same abort, and later ones are told
 * by the worker's abort watcher. Events beyond the writer's position were
 * written by a step that was interrupted in an earlier execution; the first
 * live step continues the numbering after them (see
 * `DurableEventWriter.applyResume`). The caller records the result in the
 * step's output, so a replay applies it at the same point. `nested`: the
 * step runs inside another step (`DBOS.isInStep()` before it started), so
 * it has no record of its own and must not move the numbering.
 */
export async function beginLiveStep(
  ctx: TurnContext,
  options: { nested: boolean; claimCheckedLater?: boolean; lane?: Lane },
): Promise<LiveStart> {
  const first = ctx.firstLiveRead === undefined;
  // After a takeover by another worker, this execution sends no request and runs no tool (a tool call checks
  // it in the statement that counts its attempt, before it runs: `claimCheckedLater`). After earlier live steps,
  // the check also waits until their checkpoints (which commit without waiting) are on disk: a request is sent
  // only once what came before it survives a crash of the database server too.
  if (!options.claimCheckedLater) {
    if (first) await ctx.stores.turnTable.assertClaimHolds(ctx.claim);
    else await ctx.stores.turnTable.assertClaimHoldsDurably(ctx.claim);
  }
  // Nested in another step (a hook's own model request), the record that counts is the outer one, which does not carry this.
  if (options.nested) return { resume: undefined, abortRequested: ctx.liveAbort.signal.aborted };
  ctx.firstLiveRead ??= readLiveState(ctx);
  const { storedSeq, abortRequested, tail } = await ctx.firstLiveRead;
  // An abort found pending stops every live step of this execution, as the watcher would.
  if (abortRequested) ctx.liveAbort.abort();
  // A lane of parallel sub-agent calls being replayed: only its own events can be superseded (the log
  // interleaves the lanes' events by timing), and the turn's numbering goes on after the log's end.
  const { lane } = options;
  if (lane && ctx.writer.replaysParallel) {
    const laneResume = ctx.writer.laneResume(lane.callId);
    if (laneResume) ctx.writer.applyLaneResume(laneResume, lane);
    return { resume: undefined, ...(laneResume && { laneResume }), abortRequested: ctx.liveAbort.signal.aborted };
  }
  let resume: ResumeRecord | undefined;
  if (first && storedSeq >= ctx.writer.nextSeq) {
    resume = {
      fromSeq: ctx.writer.nextSeq,
      toSeq: storedSeq,
      ...(Object.keys(tail.childSeqs).length > 0 && { childSeqs: tail.childSeqs }),
      ...(tail.resumes > 0 && { earlierResumes: tail.resumes }),
    };
    ctx.writer.applyResume(resume);
  }
  return { resume, abortRequested: ctx.liveAbort.signal.aborted };
}

/** What the first live step of an execution reads: the log's end, the abort, and where the log's sub-agent turns stand after what this execution logged. */
export interface LiveState {
  storedSeq: number;
  abortRequested: boolean;
  /** What the log holds after this execution's position (see `EventLog.tailFrom`). */
  tail: { childSeqs: Record<string, number>; resumes: number };
}

async function readLiveState(ctx: TurnContext): Promise<LiveState> {
  const [storedSeq, aborted, tail] = await Promise.all([
    ctx.stores.eventLog.maxSeq(ctx.ref.workflowId),
    ctx.stores.turnTable.abortRequested([ctx.ref.workflowId]),
    ctx.stores.eventLog.tailFrom(ctx.ref.workflowId, ctx.writer.nextSeq),
  ]);
  return { storedSeq, abortRequested: aborted.length > 0, tail };
}

/** Applies a recorded {@link LiveStart} when its step is replayed from its record. */
export function replayLiveStart(ctx: TurnContext, start: LiveStart, lane?: Lane): void {
  if (start.resume) ctx.writer.applyResume(start.resume);
  if (start.laneResume && lane) ctx.writer.applyLaneResume(start.laneResume, lane);
}

/**
 * Adds the turn's call `callId`, admitted in a parallel batch, as a lane
 * (see `StepLanes`): the turn's abort reaches the runner only once the
 * lane has finished (its seams wind down by their own records). Before
 * the batch's first sub-agent call, reads what the log holds beyond the
 * writer's position: an earlier execution may have run the batch (see
 * `DurableEventWriter.beginParallel`).
 */
export async function addLane(ctx: TurnContext, callId: string, subAgent: boolean): Promise<void> {
  const lane = ctx.lanes.add(callId, ctx.turnAbort.stopped);
  void ctx.turnAbort.around(() => lane.finished);
  if (!subAgent || ctx.lanes.logRead) return;
  ctx.lanes.logRead = true;
  ctx.writer.beginParallel(await ctx.stores.eventLog.eventsFrom(ctx.ref.workflowId, ctx.writer.nextSeq));
}

/** True once the seams of `lane` (of the turn, without one) answer at once, without a step. */
export function seamsStopped(ctx: TurnContext, lane: Lane | undefined): boolean {
  return lane ? lane.stopped : ctx.turnAbort.stopped;
}

/** A step's record holds the turn's abort: the turn records it, and so does the step's lane. */
export function recordAbort(ctx: TurnContext, lane: Lane | undefined): void {
  if (lane) lane.stopped = true;
  ctx.turnAbort.record();
}

/** A signal that fires when the step's own signal or the worker's live abort fires. */
export function liveSignal(ctx: TurnContext, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([signal, ctx.liveAbort.signal]) : ctx.liveAbort.signal;
}
