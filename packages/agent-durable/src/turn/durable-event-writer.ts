// Why this file is long: one writer owns the numbering of a turn's events, their batching and retries, resumes and the one ending; split apart, each part would reach into the others' state.
import type { EventWriter } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  createRuntimeEvent,
  type EventOrigin,
  isTerminalEvent,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
} from "@turnkit/protocol";
import { divergedEnding } from "./diverged-ending.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import type { EventLog } from "../store/event-log.js";
import { type LaneResumeRecord, ParallelReplay } from "./parallel-replay.js";
import type { TurnClaim } from "../store/turn-claim.js";
import type { HistoryWriter } from "./history-writer.js";
import type { Lane } from "./step-lanes.js";

/** Where a resumed execution found events of an interrupted step, and what it did about them. */
export interface ResumeRecord {
  /** First seq the interrupted step wrote. */
  fromSeq: number;
  /** Last seq it wrote; the resume notice goes right after it. */
  toSeq: number;
  /**
   * The highest `origin.seq` each sub-agent turn had in that range: its
   * numbering continues after it, so the turn's own sequence stays
   * increasing across the superseded events. Absent: none.
   */
  childSeqs?: Record<string, number>;
  /**
   * `durable.resume` notices in that range: executions that resumed here
   * before and died before their step was recorded. Each counts as a
   * resume, so a request sent again never reuses the message id of an
   * earlier attempt. Absent: none.
   */
  earlierResumes?: number;
}

/** A sub-agent turn of this turn, as its events showed it: where its events come from, and its last `origin.seq`. */
interface ChildTurn {
  origin: Omit<EventOrigin, "seq">;
  seq: number;
}

const WRITE_ATTEMPTS = 5;

/** Warnings whose number depends on timing, not on the turn's steps. */
const TIMING_WARNINGS: ReadonlySet<string> = new Set(["late_tool_update", "hook_abandoned"]);

/**
 * False for events a replay could not reproduce one for one, because how
 * many there are depends on timing: progress updates of running tools and
 * warnings about late updates or abandoned hooks. They are not logged.
 */
function isReplayable(event: RuntimeEvent): boolean {
  if (event.type === "debug.trace") return event.payload.message !== "tool_execution_update";
  if ((event.type as string) === "runtime.warning")
    return !TIMING_WARNINGS.has((event.payload as { code?: string }).code ?? "");
  return true;
}
const WRITE_RETRY_BASE_MS = 100;

/** The log holds another event under a seq this execution wrote: it diverged, and writing again changes nothing. */
function isLogConflict(error: unknown): error is DurableTurnError {
  return DurableTurnError.isInstance(error) && error.code === DurableTurnErrorCode.LogConflict;
}

/** Events a reader may follow with a read of the session history: they wait until it holds every change. */
function announcesHistory(event: RuntimeEvent): boolean {
  return event.type === "message.persisted" || isTerminalEvent(event);
}

/**
 * The event sink of a durable turn. It gives every logged event its own
 * `seq` and an event id derived from the turn and that seq, so an execution
 * that replays the turn produces the same numbering, and writes the events
 * to the log in the background, one batch per round trip (events pushed
 * while a write is in flight go together in the next one).
 *
 * `push` never blocks the turn and never throws. A batch whose write still
 * fails after retrying stays queued, in order, ahead of everything pushed
 * after it: the next push or {@link flush} writes it again, so a database
 * that was away for a while loses no event and skips none (the terminal
 * status included). {@link flush}, which the turn awaits before it ends,
 * tries once more and throws when the log still cannot be written.
 *
 * Events whose number depends on timing (progress updates of running
 * tools, warnings about late updates and abandoned hooks) are not logged: a
 * replay could not reproduce them one for one.
 *
 * Events of sub-agent turns (with `origin`) are numbered in their own
 * sequence too: `origin.seq` counts the logged events of that sub-agent
 * turn, 1, 2, 3, ... in log order, so a replay gives the same numbers
 * (the child's own numbering would count the progress updates that are not
 * logged, whose number depends on timing). What the durable layer itself
 * logs for a sub-agent turn ({@link emit} with its `turnId`) gets that
 * turn's `origin` and the next number of its sequence, like the events it
 * passed on.
 *
 * The terminal status is held back until the workflow calls {@link end}
 * (which may complete its payload), and nothing pushed after it is logged.
 * When the log refuses a batch because it holds another event under one of
 * its seqs (`log_conflict`: this execution diverged from an earlier one),
 * {@link diverged} fires, nothing more of this execution is logged, and its
 * ending is logged after the log's last event as a `failed` status naming
 * the conflict (see `divergedEnding`), so the log still ends once, with no
 * gap.
 * A batch with a `message.persisted` event or the terminal status waits
 * until the session history holds every change taken so far, so the log
 * never announces a message the store does not hold, and it announces the
 * messages as stored (an earlier execution's, where one stored them first).
 */
export class DurableEventWriter implements EventWriter {
  /** The seq the next logged event gets. */
  nextSeq = 1;
  /** How many interrupted steps this turn has resumed after; part of later message ids. */
  resumes = 0;
  private buffer: RuntimeEvent[] = [];
  private writing: Promise<void> | undefined;
  private failure: unknown;
  /** The terminal status once pushed: held back until {@link end}. */
  private terminal: RuntimeEvent | undefined;
  private ended = false;
  /** The sub-agent turns whose events passed through, by their turn id. */
  private readonly children = new Map<string, ChildTurn>();
  /** Where a resume left a sub-agent turn's numbering before any of its events passed through this execution. */
  private readonly resumedChildSeqs = new Map<string, number>();
  /** Set while a batch of parallel sub-agent calls is replayed over events an earlier execution logged. */
  private parallel: ParallelReplay | undefined;
  /** Fired with the `log_conflict` error once the log refused this execution's events. */
  private readonly divergence = new AbortController();
  private divergedEndingLogged = false;
  /** How many of the turn's own `message.persisted` events were pushed. */
  private announcedChanges = 0;
  /** The turn's own `message.persisted` events waiting to be logged, with the number of the change each announces. */
  private readonly announcing = new WeakMap<RuntimeEvent, number>();

  constructor(
    private readonly log: EventLog,
    private readonly history: HistoryWriter,
    /** The execution's claim on the turn: every write carries it. */
    private readonly claim: TurnClaim,
    private readonly ids: { sessionId: string; turnId: string },
  ) {}

  push(event: RuntimeEvent): void {
    // The turn's own announcements of its history, counted in order: the k-th is the k-th change taken (see `HistoryWriter.storedMessages`).
    const change = event.type === "message.persisted" && !event.origin ? this.announcedChanges++ : undefined;
    if (this.terminal || !isReplayable(event)) return;
    if (this.divergence.signal.aborted) {
      // Diverged: only the ending is logged, after the log's last event (see `flush`).
      if (isTerminalEvent(event)) this.terminal = event;
      return;
    }
    const origin = event.origin && this.nextOrigin(event.origin);
    const withOrigin = origin ? ({ ...event, origin } as RuntimeEvent) : event;
    // Replaying parallel sub-agent calls: the log holds the batch's events in the order their timing gave. Each is
    // known by its key (see `replayKey`) and logged once; a new one goes after the log's last event.
    const seq = this.parallel ? this.parallel.seqOf(withOrigin) : this.nextSeq++;
    if (seq === undefined) return;
    const numbered = { ...withOrigin, seq, eventId: `${this.claim.turnKey}#${seq}` } as RuntimeEvent;
    if (change !== undefined) this.announcing.set(numbered, change);
    if (isTerminalEvent(numbered)) {
      this.terminal = numbered;
      return;
    }
    this.buffer.push(numbered);
    this.writing ??= this.writeLoop();
  }

  /** The terminal status pushed so far (held back until {@link end}), if any. */
  get terminalStatus(): RuntimeEvent<"session.status"> | undefined {
    return this.terminal as RuntimeEvent<"session.status"> | undefined;
  }

  /**
   * Lets the terminal status be logged, with `payload` instead of the one
   * pushed when given (the workflow adds what only it knows, such as
   * steering handed back). Without a terminal status pushed, does nothing.
   */
  end(payload?: RuntimeEvent<"session.status">["payload"]): void {
    if (!this.terminal || this.ended) return;
    this.ended = true;
    if (payload) this.terminal = { ...this.terminal, payload } as RuntimeEvent;
    if (this.divergence.signal.aborted) return;
    this.buffer.push(this.terminal);
    this.writing ??= this.writeLoop();
  }

  /**
   * Fires once the log refused this execution's events because it holds
   * another event under one of their seqs (its reason: the `log_conflict`
   * error naming the seq and both events). The execution diverged from the
   * one that logged them: the turn must stop (nothing more of it is logged
   * but its ending, a `failed` status naming the conflict, once {@link end}
   * and {@link flush} are called).
   */
  get diverged(): AbortSignal {
    return this.divergence.signal;
  }

  /**
   * Logs an event of the durable layer itself (an approval request, a
   * question a tool asks, a steering receipt) in turn order. `turnId` is
   * the turn the event belongs to: this turn (the default), or one of its
   * sub-agent turns, whose events then carry its `origin` as the ones it
   * passed on do. A sub-agent turn no event came from yet (it cannot ask
   * before its first event) gets none.
   */
  emit<TType extends RuntimeEventType>(
    type: TType,
    payload: RuntimeEventPayloadMap[TType],
    turnId: string = this.ids.turnId,
  ): void {
    const child = this.children.get(turnId);
    this.push(
      createRuntimeEvent({
        eventId: "pending",
        sessionId: this.ids.sessionId,
        turnId: this.ids.turnId,
        seq: 0,
        type,
        payload,
        ...(child && { origin: { ...child.origin, seq: 0 } }),
      }) as RuntimeEvent,
    );
  }

  /** The origin of a sub-agent turn's next logged event: as passed on, numbered in that turn's logged sequence. */
  private nextOrigin(origin: EventOrigin): EventOrigin {
    let child = this.children.get(origin.turnId);
    if (!child) {
      const seq = this.resumedChildSeqs.get(origin.turnId) ?? 0;
      child = { origin: { toolCallId: origin.toolCallId, path: origin.path, turnId: origin.turnId }, seq };
      this.children.set(origin.turnId, child);
    }
    child.seq++;
    return { ...child.origin, seq: child.seq };
  }

  /**
   * Continues numbering after the events an interrupted step left in the
   * log (`fromSeq..toSeq`) and logs a warning trace naming them, so readers
   * know those events were superseded. Applied at the same point on every
   * later replay (the step that found them records the range).
   */
  applyResume(resume: ResumeRecord): void {
    this.nextSeq = resume.toSeq + 1;
    for (const [turnId, seq] of Object.entries(resume.childSeqs ?? {})) this.continueChildAfter(turnId, seq);
    this.resumes += 1 + (resume.earlierResumes ?? 0);
    this.emit("debug.trace", {
      phase: "durable.resume",
      level: "warn",
      message: `the turn resumed after a restart; events ${resume.fromSeq}..${resume.toSeq} came from an interrupted step and are superseded`,
      attrs: { supersededFromSeq: resume.fromSeq, supersededToSeq: resume.toSeq },
    });
  }

  /** True while a batch of parallel sub-agent calls is replayed over events an earlier execution logged. */
  get replaysParallel(): boolean {
    return this.parallel !== undefined;
  }

  /**
   * A batch of parallel sub-agent calls starts; `logged`: what the log holds
   * beyond the writer's position. When it holds more, an earlier execution
   * ran the batch: until {@link endParallel}, a sub-agent event it holds is
   * not logged again, a new one goes last (see `ParallelReplay`).
   */
  beginParallel(logged: { storedSeq: number; events: readonly RuntimeEvent[] }): void {
    if (logged.storedSeq < this.nextSeq) return;
    this.parallel = new ParallelReplay(logged.events, logged.storedSeq);
  }

  /** The batch has ended: the turn's own events go on after it (see `ParallelReplay.seqAfter`). */
  endParallel(): void {
    if (!this.parallel) return;
    this.nextSeq = this.parallel.seqAfter(this.nextSeq);
    this.parallel = undefined;
  }

  /** The events an interrupted step of the lane `callId` logged (only while {@link replaysParallel}). */
  laneResume(callId: string): LaneResumeRecord | undefined {
    return this.parallel?.laneResume(callId, (turnId) => this.childSeq(turnId));
  }

  /**
   * Continues the numbering of the lane's sub-agent turns after the events
   * an interrupted step of the lane left, and logs a warning trace in the
   * lane's stream naming them (the lane's events in its range are
   * superseded). Applied at the same point on every later replay.
   */
  applyLaneResume(resume: LaneResumeRecord, lane: Lane): void {
    for (const [turnId, seq] of Object.entries(resume.childSeqs)) this.continueChildAfter(turnId, seq);
    lane.resumes += 1 + (resume.earlierResumes ?? 0);
    this.emit(
      "debug.trace",
      {
        phase: "durable.resume",
        level: "warn",
        message: `the sub-agent call ${resume.callId} resumed after a restart; its events in ${resume.fromSeq}..${resume.toSeq} came from an interrupted step and are superseded`,
        attrs: { supersededFromSeq: resume.fromSeq, supersededToSeq: resume.toSeq, toolCallId: resume.callId },
      },
      `${this.ids.turnId}/${resume.callId}`,
    );
  }

  /** The last `origin.seq` given to an event of the sub-agent turn `turnId`. */
  private childSeq(turnId: string): number {
    return this.children.get(turnId)?.seq ?? this.resumedChildSeqs.get(turnId) ?? 0;
  }

  private continueChildAfter(turnId: string, seq: number): void {
    const child = this.children.get(turnId);
    if (child) child.seq = Math.max(child.seq, seq);
    else this.resumedChildSeqs.set(turnId, seq);
  }

  /**
   * Resolves once every event pushed so far is in the log, writing again
   * what an earlier write could not; rejects with `log_write` if that still
   * fails, and `superseded` once another worker took the turn over. Once
   * {@link diverged}, it logs the turn's ending (after {@link end}) as a
   * `failed` status naming the conflict, after the log's last event, and
   * rejects with the `log_conflict` error before {@link end}.
   */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.divergence.signal.aborted) return this.logDivergedEnding();
    if (this.buffer.length > 0 && !this.claim.revoked.aborted) {
      this.writing = this.writeLoop();
      await this.writing;
    }
    if (this.failure !== undefined) {
      if (this.claim.revoked.aborted) throw this.claim.revoked.reason;
      throw logWriteError(this.failure);
    }
  }

  /** The ending of a turn that diverged from the log: a `failed` status naming the conflict, after the log's last event. */
  private async logDivergedEnding(): Promise<void> {
    const conflict = this.divergence.signal.reason as DurableTurnError;
    if (!this.ended || !this.terminal) throw conflict;
    if (this.divergedEndingLogged) return;
    const terminal = this.terminal as RuntimeEvent<"session.status">;
    try {
      await this.history.flush();
      await this.withRetry(async () => {
        const seq = (await this.log.maxSeq(this.claim.turnKey)) + 1;
        const payload = divergedEnding(terminal.payload, conflict);
        await this.log.append(this.claim, [{ ...terminal, seq, eventId: `${this.claim.turnKey}#${seq}`, payload }]);
      });
    } catch (error) {
      if (this.claim.revoked.aborted) throw this.claim.revoked.reason;
      throw DurableTurnError.isInstance(error) ? error : logWriteError(error);
    }
    this.divergedEndingLogged = true;
  }

  private async writeLoop(): Promise<void> {
    // Let the synchronous burst that started this write join it.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        if (batch.some(announcesHistory)) await this.history.flush();
        await this.writeWithRetry(batch.map((event) => this.asStored(event)));
        this.failure = undefined;
      } catch (error) {
        if (isLogConflict(error)) {
          // Diverged from the log: nothing more of this execution goes into it (see `diverged`).
          this.buffer = [];
          this.divergence.abort(error);
          break;
        }
        // Kept ahead of what came after it, for the next push or flush: nothing is skipped.
        this.buffer = [...batch, ...this.buffer];
        this.failure = error;
        break;
      }
    }
    this.writing = undefined;
  }

  /** A `message.persisted` event announces the messages as the session history holds them. */
  private asStored(event: RuntimeEvent): RuntimeEvent {
    const change = this.announcing.get(event);
    if (event.type !== "message.persisted" || change === undefined) return event;
    const stored = this.history.storedMessages(change);
    return stored ? ({ ...event, payload: { ...event.payload, messages: stored } } as RuntimeEvent) : event;
  }

  /** Writes `batch`, trying again after a failure; throws the last error after {@link WRITE_ATTEMPTS}. */
  private writeWithRetry(batch: RuntimeEvent[]): Promise<void> {
    return this.withRetry(() => this.log.append(this.claim, batch));
  }

  /** Runs `write`, again after a failure; throws the last error after {@link WRITE_ATTEMPTS}. */
  private async withRetry(write: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await write();
        return;
      } catch (error) {
        // Taken over by another worker, or diverged from the log: writing again cannot succeed.
        if (attempt >= WRITE_ATTEMPTS || this.claim.revoked.aborted || isLogConflict(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_BASE_MS * 2 ** (attempt - 1)));
      }
    }
  }
}

/** The `log_write` error of a log that could not be written after retrying. */
function logWriteError(cause: unknown): DurableTurnError {
  return new DurableTurnError({
    code: DurableTurnErrorCode.LogWrite,
    message: `the event log could not be written: ${String(cause)}`,
    cause,
  });
}
