import type { EventLog } from "../store/event-log.js";
import type { SessionHistory } from "../store/session-history.js";
import type { TurnTable } from "../store/turn-table.js";
import type { DurableEventWriter, ResumeRecord } from "./durable-event-writer.js";
import type { DurableTurnRef } from "./turn-request.js";

/** The stores a turn writes to. */
export interface TurnStores {
  eventLog: EventLog;
  turnTable: TurnTable;
  history: SessionHistory;
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
  readonly writer: DurableEventWriter;
  /** The runner's signal: fired when the turn is aborted at a durable point (a step's record says so). */
  readonly turnAbort: AbortController;
  /** Fired by the worker when an abort is requested while this execution runs a step live. */
  readonly liveAbort: AbortController;
  /** How long an approval waits, in ms (the worker's default, or the turn setup's). */
  approvalTimeoutMs: number;
  /** Counters that name things in turn order: model requests, steering polls, history position. */
  readonly counters: { requests: number; polls: number; messages: number; historyLength: number };
  /** Set once this execution ran a step live (not from its record); only the first live step can find an interrupted step's events. */
  wentLive: boolean;
}

/** What a live step learned before it started: events an interrupted step left, and whether an abort is pending. */
export interface LiveStart {
  resume: ResumeRecord | undefined;
  abortRequested: boolean;
}

/**
 * Called at the start of every model request or tool call that runs live.
 * The first one of an execution reads whether an abort is pending (later
 * ones are told by the worker's abort watcher) and compares the log with
 * the writer: events
 * beyond the writer's position were written by a step that was interrupted
 * in an earlier execution; numbering continues after them (see
 * `DurableEventWriter.applyResume`). The caller records the result in the
 * step's output, so a replay applies it at the same point. `nested`: the
 * step runs inside another step (`DBOS.isInStep()` before it started), so
 * it has no record of its own and must not move the numbering.
 */
export async function beginLiveStep(ctx: TurnContext, options: { nested: boolean }): Promise<LiveStart> {
  // Nested in another step (a hook's own model request), the record that counts is the outer one, which does not carry this.
  if (ctx.wentLive || options.nested) return { resume: undefined, abortRequested: ctx.liveAbort.signal.aborted };
  ctx.wentLive = true;
  // Once per execution: later live steps learn of an abort from the worker's abort watcher.
  const [stored, aborted] = await Promise.all([
    ctx.stores.eventLog.maxSeq(ctx.ref.workflowId),
    ctx.stores.turnTable.abortRequested([ctx.ref.workflowId]),
  ]);
  let resume: ResumeRecord | undefined;
  if (stored >= ctx.writer.nextSeq) {
    resume = { fromSeq: ctx.writer.nextSeq, toSeq: stored };
    ctx.writer.applyResume(resume);
  }
  return { resume, abortRequested: ctx.liveAbort.signal.aborted || aborted.length > 0 };
}

/** Applies a recorded {@link LiveStart} when its step is replayed from its record. */
export function replayLiveStart(ctx: TurnContext, start: LiveStart): void {
  if (start.resume) ctx.writer.applyResume(start.resume);
}

/** A signal that fires when the step's own signal or the worker's live abort fires. */
export function liveSignal(ctx: TurnContext, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([signal, ctx.liveAbort.signal]) : ctx.liveAbort.signal;
}
