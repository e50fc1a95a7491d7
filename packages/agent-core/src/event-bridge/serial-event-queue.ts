import {
  RUNTIME_EVENT_SCHEMA,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
  isTerminalStatus,
} from "@turnkit/protocol";
import { ABANDONED, settleOrAbandon } from "@turnkit/agent-loop";

/** Where a turn's `RuntimeEvent`s go. `push` may be async; the queue awaits it before the next event. */
export interface EventWriter {
  /**
   * Receives the turn's next event, in `seq` order. May be async: a returned
   * promise is awaited before the next event is offered.
   *
   * A throw or rejection fails the turn with code `internal` (unless an
   * abort or an earlier failure already decided it) and stops the agent,
   * but later events, including the terminal `session.status`, are still
   * offered. Nothing is offered after the terminal status. One exception to
   * the one-at-a-time rule: when a call never settles after the turn was
   * aborted, the terminal status is offered without waiting for it.
   */
  push(event: RuntimeEvent): void | Promise<void>;
}

/** Told about a writer's first failure. */
export interface WriterFailureListener {
  /** Errors it throws are ignored: the failure is recorded either way. */
  writerFailed(error: unknown): void;
}

/**
 * Delivers a turn's events to the host's writer one at a time, in order,
 * each with the next `seq`. A writer that answers synchronously is
 * called synchronously (no promise per event); an async one is awaited
 * before the next event is handed over.
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
  private seq = 0;
  private tail: Promise<void> | undefined;
  private firstFailure: { error: unknown } | undefined;
  /** The terminal status, once pushed (the only event {@link abandon} may still hand over), and the `seq` of the newest event handed to the writer. */
  private terminal: RuntimeEvent | undefined;
  private handedOverSeq = 0;
  /** Set by {@link abandon}: events still waiting are never handed over. */
  private abandoned = false;
  /** Set once a terminal `session.status` was pushed: nothing may follow it. */
  private sealed = false;

  private readonly sessionId: string;
  private readonly turnId: string;
  private readonly newEventId: () => string;

  constructor(
    private readonly writer: EventWriter,
    ids: { sessionId: string; turnId: string; newEventId: () => string },
    private readonly failures: WriterFailureListener,
  ) {
    this.sessionId = ids.sessionId;
    this.turnId = ids.turnId;
    this.newEventId = ids.newEventId;
  }

  /** The first writer failure, if any. */
  get failure(): { error: unknown } | undefined {
    return this.firstFailure;
  }

  /** Builds the envelope now (so `seq` follows call order) and queues it for the writer. */
  push<TType extends RuntimeEventType>(type: TType, payload: RuntimeEventPayloadMap[TType]): void {
    if (this.sealed) return;
    const sealing =
      type === "session.status" && isTerminalStatus((payload as RuntimeEventPayloadMap["session.status"]).status);
    if (sealing) this.sealed = true;
    const event = {
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: this.newEventId(),
      sessionId: this.sessionId,
      turnId: this.turnId,
      seq: ++this.seq,
      type,
      payload,
    } as RuntimeEvent;
    if (sealing) this.terminal = event;
    if (this.tail) {
      this.tail = this.tail.then(() => this.deliver(event));
      return;
    }
    const pending = this.deliver(event);
    if (pending) {
      const tail: Promise<void> = pending.then(() => {
        if (this.tail === tail) this.tail = undefined;
      });
      this.tail = tail;
    }
  }

  private deliver(event: RuntimeEvent): Promise<void> | undefined {
    if (this.abandoned) return undefined;
    this.handedOverSeq = event.seq;
    let result: void | Promise<void>;
    try {
      result = this.writer.push(event);
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    if (result && typeof (result as Promise<void>).then === "function") {
      return (result as Promise<void>).then(undefined, (error: unknown) => this.fail(error));
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
   * Gives up on a writer that never returned (after {@link drain} reported
   * `"abandoned"`): the events still waiting behind the stuck call are
   * dropped, and the turn's terminal status, once pushed, is handed to the
   * writer at once, unless it already was, so even a stuck sink is offered
   * the end of the turn. `seq` still increases over
   * what the writer receives. The call is not awaited; a failure is
   * recorded like any other.
   */
  abandon(): void {
    if (this.abandoned) return;
    const terminal = this.terminal;
    const pending = terminal !== undefined && terminal.seq > this.handedOverSeq;
    if (pending) {
      this.handedOverSeq = terminal.seq;
      try {
        const result = this.writer.push(terminal);
        if (result && typeof (result as Promise<void>).then === "function")
          (result as Promise<void>).then(undefined, (error: unknown) => this.fail(error));
      } catch (error) {
        this.fail(error);
      }
    }
    this.abandoned = true;
    this.tail = undefined;
  }

  /**
   * Resolves when every queued event was handed over. With a `signal`, once
   * it has fired, waits at most `graceMs` more for a writer that never
   * returns and then reports `"abandoned"`.
   */
  async drain(signal?: AbortSignal, graceMs = 0): Promise<"drained" | "abandoned"> {
    while (this.tail) {
      const tail = this.tail;
      if ((await settleOrAbandon(tail, signal, graceMs)) === ABANDONED) return "abandoned";
      if (this.tail === tail) this.tail = undefined;
    }
    return "drained";
  }
}
