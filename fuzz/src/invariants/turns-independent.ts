/**
 * Invariant 12: turns on one runner are independent. A turn run at the same
 * time as others on one `PiTurnRunner` ends exactly as it does alone on a
 * runner of its own: the same settlement and outcome, the same events (type,
 * `seq`, ids of session and turn, payload) and the same history offered to
 * the host. Two things may differ: the event id, which the runner allocates
 * from one counter for all its turns, and message `timestamp`s, which the
 * loop takes from the wall clock, not the runner's virtual one. Any state the runner shares between
 * turns (a cached call stack, a tracer, id sources) must not leak one turn's
 * requests, retries, budgets or messages into another.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import type { TurnRunObservation } from "../observe-turn.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "12 turns on one runner are independent";

/** JSON without wall-clock message timestamps. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (key, field) => (key === "timestamp" ? undefined : field));
}

/** The event as the comparison sees it: everything but its id. */
function comparable(event: RuntimeEvent): string {
  const { eventId: _eventId, ...rest } = event;
  return stableJson(rest);
}

function settlementOf(observation: TurnRunObservation): string {
  return stableJson(
    observation.settlements.map((settlement) =>
      settlement.kind === "resolved" ? settlement : { kind: "rejected", error: String(settlement.error) },
    ),
  );
}

/** Compares turn `label` run together with others (`together`) with the same turn run alone. */
export function checkTurnIndependent(label: string, together: TurnRunObservation, alone: TurnRunObservation): void {
  const settledTogether = settlementOf(together);
  const settledAlone = settlementOf(alone);
  if (settledTogether !== settledAlone) {
    throw new InvariantViolation(
      INVARIANT,
      `${label}: settled ${describeValue(settledTogether)} next to other turns, ${describeValue(settledAlone)} alone`,
    );
  }
  const count = Math.max(together.events.length, alone.events.length);
  for (let index = 0; index < count; index++) {
    const a = together.events[index];
    const b = alone.events[index];
    const textA = a ? comparable(a) : "(none)";
    const textB = b ? comparable(b) : "(none)";
    if (textA !== textB) {
      throw new InvariantViolation(
        INVARIANT,
        `${label}: event ${index} is ${describeValue(textA)} next to other turns, ${describeValue(textB)} alone`,
      );
    }
  }
  const offered = (observation: TurnRunObservation) => stableJson(observation.offered);
  if (offered(together) !== offered(alone)) {
    throw new InvariantViolation(
      INVARIANT,
      `${label}: history offered differs: ${describeValue(offered(together))} next to other turns, ${describeValue(offered(alone))} alone`,
    );
  }
  if (together.listenersLeft !== 0)
    throw new InvariantViolation(
      INVARIANT,
      `${label}: ${together.listenersLeft} listeners left on the caller's signal`,
    );
}
