import { type RuntimeEvent, isTerminalStatus } from "@turnkit/protocol";

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
 * Returns the terminal status, so a test can go on with
 * `expect(assertRuntimeEventSequence(events)).toBe("completed")`.
 */
export function assertRuntimeEventSequence(events: readonly RuntimeEvent[]): "completed" | "aborted" | "failed" {
  const fail = (message: string, event?: RuntimeEvent): never => {
    const where = event
      ? ` (event seq ${event.seq}, ${event.type}${event.type === "session.status" ? ` ${event.payload.status}` : ""})`
      : "";
    throw new Error(`RuntimeEvent sequence is invalid: ${message}${where}`);
  };
  if (events.length === 0) fail("no events");
  const first = events[0]!;
  if (first.type !== "session.status" || first.payload.status !== "running")
    fail("the first event must be session.status running", first);

  const eventIds = new Set<string>();
  const chunkIndexes = new Map<string, number>();
  const requestIds = new Set<string>();
  const terminals: RuntimeEvent<"session.status">[] = [];
  let previousSeq = -Infinity;
  for (const event of events) {
    if (!Number.isInteger(event.seq) || event.seq <= previousSeq)
      fail(`seq must strictly increase (previous ${previousSeq})`, event);
    previousSeq = event.seq;
    if (event.sessionId !== first.sessionId || event.turnId !== first.turnId)
      fail("sessionId/turnId differ from the first event's", event);
    if (eventIds.has(event.eventId)) fail(`eventId ${event.eventId} is repeated`, event);
    eventIds.add(event.eventId);
    if (event.type === "session.status" && isTerminalStatus(event.payload.status)) {
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
  return terminal.payload.status as "completed" | "aborted" | "failed";
}
