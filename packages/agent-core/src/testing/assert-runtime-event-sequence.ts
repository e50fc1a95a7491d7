import { isList, isRecord } from "@turnkit/agent-loop/internal";
import { type RuntimeEvent, isTerminalStatus } from "@turnkit/protocol";
import { describeValue } from "../messages/content-checks.js";

/**
 * Checks the envelope rules every turn's event stream must follow, and
 * throws an `Error` naming the first rule broken (with the offending event's
 * `seq` and type). Rules:
 *
 * - at least one event; the first is `session.status` `running`;
 * - `seq` strictly increases from one event to the next;
 * - every event carries the same `sessionId` and `turnId`, and a unique `eventId`;
 * - exactly one terminal `session.status` (`completed`, `aborted`, `failed`),
 *   and it is the last event; a `failed` one carries `error.code`;
 * - the `chunkIndex` of each `stream.resp` message id strictly increases;
 * - each `action.required` (of any kind: `tool_approval`, `elicitation`)
 *   has a `requestId` no earlier request of the turn had.
 *
 * Events passed on from sub-agents (with `origin`) count for `seq`, ids and
 * chunks like the rest; the rules of a turn apply to them per sub-agent turn
 * (`origin.turnId`): `origin.seq` strictly increases, `running` first, at
 * most one terminal status and nothing of that turn after it, and every
 * `origin.path` starts at `origin.toolCallId`. A sub-agent turn may lack
 * its terminal status only when the turn did not complete (an abort or a
 * failure cut it short).
 *
 * Returns the terminal status, so a test can go on with
 * `expect(assertRuntimeEventSequence(events)).toBe("completed")`. Throws a
 * `TypeError` instead when `events` is no array, or one of them no event
 * object with a `payload` object (and an `origin` object with a `path`
 * array, when it has an origin).
 */
export function assertRuntimeEventSequence(events: readonly RuntimeEvent[]): "completed" | "aborted" | "failed" {
  const fail = (message: string, event?: RuntimeEvent): never => {
    const where = event
      ? ` (event seq ${event.seq}, ${event.type}${event.type === "session.status" ? ` ${event.payload.status}` : ""})`
      : "";
    throw new Error(`RuntimeEvent sequence is invalid: ${message}${where}`);
  };
  if (!isList(events as unknown)) {
    throw new TypeError(
      `RuntimeEvent sequence is invalid: expected an array of events, got ${events === null ? "null" : typeof events}`,
    );
  }
  events.forEach(assertEventShape);
  if (events.length === 0) fail("no events");
  const first = events[0]!;
  if (first.type !== "session.status" || first.payload.status !== "running")
    fail("the first event must be session.status running", first);

  const eventIds = new Set<string>();
  const chunkIndexes = new Map<string, number>();
  const requestIds = new Set<string>();
  const terminals: RuntimeEvent<"session.status">[] = [];
  const children = new Map<string, { seq: number; ended: boolean }>();
  let previousSeq = -Infinity;
  for (const event of events) {
    if (!Number.isInteger(event.seq) || event.seq <= previousSeq)
      fail(`seq must strictly increase (previous ${previousSeq})`, event);
    previousSeq = event.seq;
    if (event.sessionId !== first.sessionId || event.turnId !== first.turnId)
      fail("sessionId/turnId differ from the first event's", event);
    if (eventIds.has(event.eventId)) fail(`eventId ${event.eventId} is repeated`, event);
    eventIds.add(event.eventId);
    if (event.origin) {
      checkChildEvent(event, children, fail);
    } else if (event.type === "session.status" && isTerminalStatus(event.payload.status)) {
      terminals.push(event);
      if (event.payload.status === "failed" && typeof event.payload.error?.code !== "string")
        fail("a failed status must carry error.code", event);
    }
    if (event.type === "stream.resp") {
      const previous = chunkIndexes.get(event.payload.messageId) ?? -1;
      if (event.payload.chunkIndex <= previous)
        fail(`chunkIndex of ${event.payload.messageId} must strictly increase`, event);
      chunkIndexes.set(event.payload.messageId, event.payload.chunkIndex);
    }
    if (event.type === "action.required") {
      if (requestIds.has(event.payload.requestId))
        fail(`action.required requestId ${event.payload.requestId} is repeated`, event);
      requestIds.add(event.payload.requestId);
    }
  }
  if (terminals.length === 0) fail("no terminal session.status");
  if (terminals.length > 1) fail(`${terminals.length} terminal session.status events`, terminals[1]);
  const terminal = terminals[0]!;
  if (terminal !== events[events.length - 1]) fail("the terminal session.status is not the last event", terminal);
  if (terminal.payload.status === "completed") {
    for (const [turnId, child] of children)
      if (!child.ended) fail(`sub-agent turn ${turnId} has no terminal session.status in a completed turn`, terminal);
  }
  return terminal.payload.status as "completed" | "aborted" | "failed";
}

/** The rules of a turn, for one event a sub-agent turn passed on. */
function checkChildEvent(
  event: RuntimeEvent,
  children: Map<string, { seq: number; ended: boolean }>,
  fail: (message: string, event?: RuntimeEvent) => never,
): void {
  const origin = event.origin!;
  if (origin.path.length === 0 || origin.path[0]!.toolCallId !== origin.toolCallId)
    fail(`origin.path of sub-agent turn ${origin.turnId} must start at origin.toolCallId`, event);
  const child = children.get(origin.turnId);
  const running = event.type === "session.status" && event.payload.status === "running";
  if (!child) {
    if (!running) fail(`the first event of sub-agent turn ${origin.turnId} must be session.status running`, event);
    children.set(origin.turnId, { seq: origin.seq, ended: false });
    return;
  }
  if (child.ended) fail(`sub-agent turn ${origin.turnId} emitted after its terminal session.status`, event);
  if (!Number.isInteger(origin.seq) || origin.seq <= child.seq)
    fail(`origin.seq of sub-agent turn ${origin.turnId} must strictly increase (previous ${child.seq})`, event);
  child.seq = origin.seq;
  if (event.type === "session.status") {
    if (running) fail(`sub-agent turn ${origin.turnId} is running twice`, event);
    child.ended = isTerminalStatus(event.payload.status);
  }
}

/** Throws a `TypeError` naming `events[index]` when the event lacks what the rules read. */
function assertEventShape(event: unknown, index: number): void {
  const fail = (problem: string) => new TypeError(`assertRuntimeEventSequence: events[${index}]${problem}`);
  if (!isRecord(event)) throw fail(` must be a RuntimeEvent object, got ${describeValue(event)}`);
  if (!isRecord(event.payload)) throw fail(`.payload must be an object, got ${describeValue(event.payload)}`);
  if (event.origin === undefined) return;
  if (!isRecord(event.origin) || !isList(event.origin.path) || !Array.from(event.origin.path).every(isRecord))
    throw fail(`.origin must be an object with a path of hops, got ${describeValue(event.origin)}`);
}
