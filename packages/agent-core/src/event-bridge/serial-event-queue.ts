// Why this file is long: it is one class, the order a turn's events reach the writer in: numbering, pacing behind an async writer, giving up on a stuck one, and naming each event (the host's ids checked); split, the invariants that tie them lose their single place.
import {
  RUNTIME_EVENT_SCHEMA,
  type DebugTracePayload,
  type EventOrigin,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
  isTerminalStatus,
} from "@turnkit/protocol";
import { randomUUID } from "node:crypto";
import { ABANDONED, errorText, settleOrAbandon } from "@turnkit/agent-loop/internal";
import type { Clock } from "../clock.js";
import { describeValue } from "../messages/content-checks.js";

/** Event ids unique across runners and processes: one random prefix per runner and a counter in base 36. */
export function sequentialEventIds(): () => string {
  const prefix = `evt_${randomUUID()}_`;
  let next = 0;
  return () => prefix + (++next).toString(36);
}

/** Where a turn's `RuntimeEvent`s go. `push` may be async; the queue awaits it before the next event. */
export interface EventWriter {
  /**
   * Receives the turn's next event. Events come one at a time, in order,
   * with `seq` 1, 2, 3, ... and no gap: a number is given only to an event
   * handed to the writer. May be async: a returned promise is awaited
   * before the next event is offered.
   *
   * A throw or rejection fails the turn with code `internal` (unless an
   * abort or an earlier failure already decided it) and stops the agent,
   * but later events, including the terminal `session.status`, are still
   * offered. Nothing is offered after the terminal status. One exception to
   * the one-at-a-time rule: when a call is still pending once the turn was
   * aborted and its abort grace is over (or, with `RunTurnInput.hookTimeoutMs`,
   * once that long has passed, which fails the turn), the events waiting behind it are
   * dropped (they are never numbered), and the writer is offered, without
   * waiting for the pending call, a `debug.trace` (phase `events`, level
   * `warn`, `attrs.droppedEvents` and `attrs.droppedTypes`) saying how many
   * it never received and of which types, then the terminal status.
   *
   * An event is read-only: it is handed over as the turn built it, without
   * a copy (a copy of every event costs more than the rest of the runner's
   * work on a turn of many tool calls), and a payload may share objects with
   * the turn's transcript (a call's arguments, a tool's result, the
   * messages of a `message.persisted` announced without history hooks). A
   * writer that needs to change an event changes its own copy.
   */
  push(event: RuntimeEvent): void | Promise<void>;
}

/** Told about a writer's first failure, and about the host's event ids failing. */
export interface WriterFailureListener {
  /** Errors it throws are ignored: the failure is recorded either way. */
  writerFailed(error: unknown): void;
  /**
   * The writer's answer to one call did not settle within the answer limit
   * the queue was given (`limitMs`): the queue waits for it no more (see
   * {@link SerialEventQueue.drain}). Told once.
   */
  writerTimedOut?(limitMs: number): void;
  /**
   * The host's `newEventId` threw, answered with no non-empty string, or
   * (when the queue checks for it, see {@link EventIds.checkRepeats})
   * answered the id of an earlier event of the queue (`problem` says
   * which, as "failed: ..." or "returned ..."). Told once, right after the
   * event it failed for was queued; the queue's own ids stand in from then
   * on, that event's included, so no two events share an id.
   */
  eventIdsFailed?(problem: string): void;
}

/** What names a queue's events. */
export interface EventIds {
  sessionId: string;
  turnId: string;
  /** The next event's id: a non-empty string, synchronously. */
  newEventId: () => string;
  /**
   * Whether the queue remembers every id `newEventId` answered, to refuse
   * one it answered before (one set entry per event until the queue is
   * dropped). Set for a host's ids; the runner's own never repeat.
   */
  checkRepeats: boolean;
}

/** An event waiting behind a busy writer: it gets its `seq` when it is handed over. */
interface WaitingEvent {
  eventId: string;
  type: RuntimeEventType;
  payload: RuntimeEventPayloadMap[RuntimeEventType];
  /** Set on an event passed on from a sub-agent turn. */
  origin: EventOrigin | undefined;
}

/** The `phase` of the `debug.trace` that announces events a stuck writer never received. */
const DROPPED_EVENTS_PHASE = "events";

/**
 * Delivers a turn's events to the host's writer one at a time, in order.
 * Each event gets the next `seq` when it is handed to the writer, so the
 * writer sees 1, 2, 3, ... without a gap whatever happens to the events
 * behind a call that never returns. A writer that answers synchronously is
 * called synchronously (no promise per event); an async one is awaited
 * before the next event is handed over. A writer that pushes more events
 * from inside `push` gets them after its call returned.
 *
 * A writer failure never throws out of `push`: the first one is recorded
 * (`failure`) and reported to the failure listener; later events are still offered,
 * so the terminal status has its chance.
 *
 * A terminal `session.status` seals the queue: whatever is pushed after it
 * (e.g. by a hook the turn gave up on that returns late) is dropped, so the
 * terminal status stays the last event the writer receives.
 */
export class SerialEventQueue {
  /** The `seq` of the newest event handed to the writer. */
  private seq = 0;
  /** Events pushed while the writer was busy, oldest first. */
  private readonly behindWriter: WaitingEvent[] = [];
  /** Set while the writer's answer to a call is awaited: the waiting events are handed over once it settles. */
  private writing: Promise<void> | undefined;
  /** Set while events are handed over synchronously: an event pushed meanwhile waits its turn. */
  private handingOver = false;
  private firstFailure: { error: unknown } | undefined;
  /** The terminal status, once pushed. */
  private terminal: WaitingEvent | undefined;
  /** Set by {@link abandon}: nothing waits for the writer any more. */
  private abandoned = false;
  /** Set once a terminal `session.status` was pushed (or the writer was abandoned): nothing may follow. */
  private sealed = false;
  /** Set when the writer's answer to a call did not settle within the answer limit: nothing waits for it any more. */
  private timedOut = false;

  private readonly sessionId: string;
  private readonly turnId: string;
  private readonly newEventId: () => string;
  /** Every id `newEventId` answered, when repeats are checked. */
  private readonly usedEventIds: Set<string> | undefined;
  /** The queue's own event ids, once the host's failed. */
  private ownEventIds: (() => string) | undefined;
  /** How the host's ids failed, until the listener was told. */
  private eventIdProblem: string | undefined;

  constructor(
    private readonly writer: EventWriter,
    ids: EventIds,
    private readonly failures: WriterFailureListener,
    /** How long one call of the writer may take to settle, on `clock`; none: as long as it takes. */
    private readonly answerLimit?: { ms: number; clock: Clock },
  ) {
    this.sessionId = ids.sessionId;
    this.turnId = ids.turnId;
    this.newEventId = ids.newEventId;
    this.usedEventIds = ids.checkRepeats ? new Set() : undefined;
  }

  /** The first writer failure, if any. */
  get failure(): { error: unknown } | undefined {
    return this.firstFailure;
  }

  /**
   * Queues one event for the writer, behind every event pushed before it;
   * hands it over at once when the writer is free. An event with `origin`
   * (passed on from a sub-agent turn) is numbered like the turn's own; its
   * terminal status does not seal the queue.
   */
  push<TType extends RuntimeEventType>(
    type: TType,
    payload: RuntimeEventPayloadMap[TType],
    origin?: EventOrigin,
  ): void {
    if (this.sealed) return;
    this.queue(this.nextEventId(), type, payload, origin);
    const problem = this.eventIdProblem;
    if (problem === undefined) return;
    this.eventIdProblem = undefined;
    try {
      this.failures.eventIdsFailed?.(problem);
    } catch {
      // The listener's own failure changes nothing: the queue's ids stand in either way.
    }
  }

  /** The host's next event id; once it throws, answers with no non-empty string or repeats one, the queue's own (see {@link WriterFailureListener.eventIdsFailed}). */
  private nextEventId(): string {
    if (this.ownEventIds) return this.ownEventIds();
    try {
      const id: unknown = this.newEventId();
      if (typeof id !== "string" || id === "")
        this.eventIdProblem = `returned ${describeValue(id)}, not a non-empty string`;
      else if (!this.usedEventIds) return id;
      // Two events under one id read as one to a store that keeps events by id: the later one would be lost.
      else if (this.usedEventIds.has(id))
        this.eventIdProblem = `returned ${describeValue(id)}, the id of an earlier event of this turn`;
      else {
        this.usedEventIds.add(id);
        return id;
      }
    } catch (error) {
      this.eventIdProblem = `failed: ${errorText(error)}`;
    }
    this.ownEventIds = sequentialEventIds();
    return this.ownEventIds();
  }

  private queue<TType extends RuntimeEventType>(
    eventId: string,
    type: TType,
    payload: RuntimeEventPayloadMap[TType],
    origin: EventOrigin | undefined,
  ): void {
    const terminal =
      !origin &&
      type === "session.status" &&
      isTerminalStatus((payload as RuntimeEventPayloadMap["session.status"]).status);
    if (terminal) this.sealed = true;
    if (this.writing || this.handingOver) {
      const event: WaitingEvent = { eventId, type, payload, origin };
      if (terminal) this.terminal = event;
      this.behindWriter.push(event);
      return;
    }
    // The writer is free and nothing waits: the event goes to it now.
    this.handingOver = true;
    try {
      const answer = this.handOver(eventId, type, payload, origin);
      if (answer) {
        this.writing = this.resumeAfter(answer);
        return;
      }
    } finally {
      this.handingOver = false;
    }
    if (this.behindWriter.length > 0) this.handOverWaiting();
  }

  /** Hands the waiting events over in order, while the writer answers synchronously; an async answer is awaited first. */
  private handOverWaiting(): void {
    this.handingOver = true;
    try {
      for (let next = this.behindWriter.shift(); next; next = this.behindWriter.shift()) {
        const answer = this.handOver(next.eventId, next.type, next.payload, next.origin);
        if (answer) {
          this.writing = this.resumeAfter(answer);
          return;
        }
      }
    } finally {
      this.handingOver = false;
    }
  }

  private async resumeAfter(answer: Promise<void>): Promise<void> {
    const limit = this.answerLimit;
    if (!limit) await answer;
    else if (!(await settledWithin(answer, limit))) {
      this.timedOut = true;
      try {
        this.failures.writerTimedOut?.(limit.ms);
      } catch {
        // The listener's own failure changes nothing: the queue waits no more either way.
      }
      return;
    }
    if (this.abandoned) return;
    this.writing = undefined;
    this.handOverWaiting();
  }

  /** Numbers the event and calls the writer; returns its answer when that is a promise (never rejecting: a failure is recorded). */
  private handOver(
    eventId: string,
    type: RuntimeEventType,
    payload: WaitingEvent["payload"],
    origin: EventOrigin | undefined,
  ): Promise<void> | undefined {
    const envelope = {
      schema: RUNTIME_EVENT_SCHEMA,
      eventId,
      sessionId: this.sessionId,
      turnId: this.turnId,
      seq: ++this.seq,
      type,
      payload,
    } as RuntimeEvent;
    if (origin) envelope.origin = origin;
    try {
      const answer: unknown = this.writer.push(envelope);
      // Through a promise of our own: a thenable whose `then` throws or misbehaves is the writer's failure, never the turn's crash.
      if (answer && typeof (answer as PromiseLike<void>).then === "function")
        return Promise.resolve(answer as PromiseLike<void>).then(undefined, (error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
    return undefined;
  }

  private fail(error: unknown): void {
    if (this.firstFailure) return;
    this.firstFailure = { error };
    try {
      this.failures.writerFailed(error);
    } catch {
      // The failure is recorded; a failing observer of it changes nothing.
    }
  }

  /**
   * Gives up on a writer that did not return (after {@link drain} reported
   * `"abandoned"`: the turn was aborted and its grace is over, or a call
   * took longer than the answer limit): the events still waiting behind its pending call are
   * dropped without a number, and, without waiting for that call, the
   * writer is handed a `debug.trace` announcing them (when there are any),
   * then the turn's terminal status (when it was pushed and is not handed
   * over yet): so even a stuck sink is offered the end of the turn, and
   * `seq` has no gap. Nothing is handed over afterwards. A failure of
   * these calls is recorded like any other.
   */
  abandon(): void {
    if (this.abandoned) return;
    this.abandoned = true;
    this.sealed = true;
    this.writing = undefined;
    const dropped = this.behindWriter.splice(0);
    const terminal = dropped[dropped.length - 1] === this.terminal ? dropped.pop() : undefined;
    if (dropped.length > 0) this.handOver(this.nextEventId(), "debug.trace", this.droppedNotice(dropped), undefined);
    if (terminal) this.handOver(terminal.eventId, terminal.type, terminal.payload, terminal.origin);
  }

  /** The `debug.trace` payload that tells the writer which events it never received. */
  private droppedNotice(dropped: readonly WaitingEvent[]): DebugTracePayload {
    const droppedTypes: Partial<Record<RuntimeEventType, number>> = {};
    for (const { type } of dropped) droppedTypes[type] = (droppedTypes[type] ?? 0) + 1;
    const payload: DebugTracePayload = {
      phase: DROPPED_EVENTS_PHASE,
      level: "warn",
      message: this.timedOut
        ? `the event writer did not answer within ${this.answerLimit!.ms} ms; ${dropped.length} events it never received were dropped`
        : `the event writer did not return after the turn was aborted; ${dropped.length} events it never received were dropped`,
      attrs: { droppedEvents: dropped.length, droppedTypes },
    };
    return payload;
  }

  /**
   * Resolves when every queued event was handed over. With a `signal`, once
   * it has fired, waits at most `graceMs` more for a writer that never
   * returns and then reports `"abandoned"`; so it does, at once, once a
   * call of the writer took longer than the answer limit.
   */
  async drain(signal?: AbortSignal, graceMs = 0): Promise<"drained" | "abandoned"> {
    while (this.writing) {
      if (this.timedOut) return "abandoned";
      if ((await settleOrAbandon(this.writing, signal, graceMs)) === ABANDONED) return "abandoned";
    }
    return this.timedOut ? "abandoned" : "drained";
  }
}

/** Whether `answer` (which never rejects) settled within `limit.ms` on `limit.clock`. */
function settledWithin(answer: Promise<void>, limit: { ms: number; clock: Clock }): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = limit.clock.setTimeout(() => resolve(false), limit.ms);
    answer.then(() => {
      limit.clock.clearTimeout(timer);
      resolve(true);
    });
  });
}
