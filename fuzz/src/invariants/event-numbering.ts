/**
 * Invariant 13: `seq` has no gap. The events the writer was offered carry
 * `seq` 1, 2, 3, ... in order: a number never goes to an event the writer
 * does not receive, so a host can tell a lost event from a late one. What
 * a writer given up on never received is announced instead, by at most one
 * `debug.trace` (phase `events`, level `warn`) right before the terminal
 * status, whose `droppedEvents` is the sum of its `droppedTypes`; and only
 * when the writer was one that may not answer in time, and the caller
 * aborted the turn or `hookTimeoutMs` bounds the writer. (The terminal status last and once is invariant 3.)
 * Every event is named: a non-empty string `eventId`, unique within the
 * turn (the fuzz's own `newEventId` never repeats one), and a non-empty
 * string `messageId` in a payload that has one, whatever the host's id
 * callbacks answered.
 */
import type { RuntimeEvent, RuntimeEventType } from "@turnkit/protocol";
import type { TurnRunObservation } from "../observe-turn.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "13 seq without a gap, dropped events announced";

/** The `phase` of the runner's notice of events a writer given up on never received. */
const DROPPED_EVENTS_PHASE = "events";

/** What a run's dropped-events notice says. */
export interface DroppedEvents {
  count: number;
  byType: Partial<Record<RuntimeEventType, number>>;
}

function isDroppedNotice(event: RuntimeEvent): event is RuntimeEvent<"debug.trace"> {
  return event.type === "debug.trace" && event.payload.phase === DROPPED_EVENTS_PHASE;
}

/**
 * The events the writer never received, as the run's notice states them
 * (nothing dropped: `undefined`). The other invariants read it to allow a
 * run cut short; {@link checkEventNumbering} checks the notice itself.
 */
export function droppedEventsOf(events: readonly RuntimeEvent[]): DroppedEvents | undefined {
  const notice = events.find(isDroppedNotice);
  if (!notice) return undefined;
  const attrs = (notice.payload.attrs ?? {}) as { droppedEvents?: unknown; droppedTypes?: unknown };
  return {
    count: typeof attrs.droppedEvents === "number" ? attrs.droppedEvents : 0,
    byType: (attrs.droppedTypes ?? {}) as DroppedEvents["byType"],
  };
}

/** How many events of `type` the writer never received (0 when nothing was dropped). */
export function droppedOfType(events: readonly RuntimeEvent[], type: RuntimeEventType): number {
  return droppedEventsOf(events)?.byType[type] ?? 0;
}

/**
 * `writerMayStall`: the scenario's writer answers late or never from some
 * event on; `writerBounded`: the turn sets `hookTimeoutMs`, so such a
 * writer is given up on without an abort.
 */
export function checkEventNumbering(
  observation: TurnRunObservation,
  options: { writerMayStall: boolean; writerBounded: boolean },
): void {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  const { events } = observation;
  // The fuzz's `newEventId` never repeats an id, so no two events of a turn may share one.
  const firstWithId = new Map<unknown, number>();
  events.forEach((event, index) => {
    if (typeof event.eventId !== "string" || event.eventId === "")
      fail(`event #${index} (${event.type}) has eventId ${describeValue(event.eventId)}`);
    const earlier = firstWithId.get(event.eventId);
    if (earlier !== undefined)
      fail(`event #${index} (${event.type}) repeats the eventId ${describeValue(event.eventId)} of event #${earlier}`);
    firstWithId.set(event.eventId, index);
    const payload = event.payload as { messageId?: unknown };
    if (
      "messageId" in payload &&
      payload.messageId !== undefined &&
      (typeof payload.messageId !== "string" || payload.messageId === "")
    )
      fail(`event #${index} (${event.type}) names message ${describeValue(payload.messageId)}`);
    if (event.seq !== index + 1)
      fail(
        `event #${index} (${event.type}) has seq ${event.seq}, expected ${index + 1} (seq so far: ${describeValue(events.slice(0, index + 1).map((each) => each.seq))})`,
      );
  });
  const notices = events.filter(isDroppedNotice);
  if (notices.length === 0) return;
  if (notices.length > 1) fail(`${notices.length} dropped-events notices`);
  const notice = notices[0]!;
  if (events.indexOf(notice) !== events.length - 2)
    fail(`the dropped-events notice is seq ${notice.seq}, not right before the terminal status`);
  if (notice.payload.level !== "warn") fail(`the dropped-events notice has level ${notice.payload.level}`);
  const dropped = droppedEventsOf(events)!;
  const sum = Object.values(dropped.byType).reduce((total, count) => total + (count ?? 0), 0);
  if (!Number.isInteger(dropped.count) || dropped.count < 1 || sum !== dropped.count)
    fail(`the dropped-events notice does not add up: ${describeValue(notice.payload.attrs)}`);
  if (!options.writerMayStall)
    fail(`events were dropped though the writer answered every call in time: ${describeValue(notice.payload)}`);
  if (!observation.callerAborted && !options.writerBounded)
    fail("events were dropped though the caller never aborted the turn and no hookTimeoutMs bounds the writer");
}
