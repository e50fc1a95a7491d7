/**
 * Invariant 11: a logger that throws or rejects changes nothing. The same
 * scenario run with a quiet logger ends with the same outcome, the same
 * events (by type, in order) and the same history offered to the host.
 */
import type { TurnRunObservation } from "../observe-turn.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "11 a failing logger changes nothing";

function outcomeOf(observation: TurnRunObservation) {
  const settlement = observation.settlements[0];
  if (settlement?.kind !== "resolved") return settlement;
  const { outcome } = settlement;
  return outcome.kind === "failed" ? { kind: outcome.kind, code: outcome.error.code } : { kind: outcome.kind };
}

/** Compares a run whose logger failed with the same run and a quiet logger. */
export function checkLoggerChangesNothing(failing: TurnRunObservation, quiet: TurnRunObservation): void {
  const a = describeValue(outcomeOf(failing));
  const b = describeValue(outcomeOf(quiet));
  if (a !== b) throw new InvariantViolation(INVARIANT, `outcome ${a} with the failing logger, ${b} with a quiet one`);
  const types = (observation: TurnRunObservation) => observation.events.map((event) => event.type).join(",");
  if (types(failing) !== types(quiet)) {
    throw new InvariantViolation(
      INVARIANT,
      `events differ: ${describeValue(types(failing))} vs ${describeValue(types(quiet))}`,
    );
  }
  const offered = (observation: TurnRunObservation) =>
    observation.offered.map(({ change }) => `${change.reason}:${change.messages.length}`).join(",");
  if (offered(failing) !== offered(quiet))
    throw new InvariantViolation(INVARIANT, `history differs: ${offered(failing)} vs ${offered(quiet)}`);
}
