/**
 * Invariant 3: `runTurn` resolved (never rejected) with exactly one outcome,
 * and the last event is the matching terminal `session.status`, after
 * a `running` first event, with nothing after it; `aborted` only when the
 * caller's signal fired.
 */
import { assertRuntimeEventSequence } from "@turnkit/agent-core/testing";
import type { TurnOutcome } from "@turnkit/protocol";
import type { TurnRunObservation } from "../observe-turn.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "3 one outcome, terminal status last";

/** Returns the outcome, for later checks. */
export function checkTurnEnding(
  observation: TurnRunObservation,
  options: { abortedBeforeStart: boolean; writerFails: boolean },
): TurnOutcome {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  const { settlements, events } = observation;
  if (settlements.length !== 1) fail(`runTurn settled ${settlements.length} times`);
  const settlement = settlements[0]!;
  if (settlement.kind === "rejected")
    return fail(
      `runTurn rejected: ${describeValue(settlement.error instanceof Error ? settlement.error.message : settlement.error)}`,
    );
  const { outcome } = settlement;
  if (!["completed", "aborted", "failed"].includes(outcome.kind)) fail(`unknown outcome ${describeValue(outcome)}`);
  if (outcome.kind === "failed" && (typeof outcome.error?.code !== "string" || typeof outcome.message !== "string")) {
    fail(`a failed outcome without error.code and message: ${describeValue(outcome)}`);
  }
  let terminal: string;
  try {
    terminal = assertRuntimeEventSequence(events);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if (terminal !== outcome.kind) fail(`the terminal status is ${terminal} but the outcome is ${outcome.kind}`);
  // `aborted` means the caller's signal fired, also when the provider ended a response as aborted on its own.
  if (outcome.kind === "aborted" && !observation.callerAborted)
    fail("the outcome is aborted, yet the caller never aborted");
  if (options.abortedBeforeStart) {
    if (outcome.kind !== "aborted")
      fail(`the caller's signal was aborted before the turn, yet the outcome is ${outcome.kind}`);
    // Running, aborted (the runner's cancellation step), and between them only the debug.trace that
    // announces a host callback failing on the way (the writer, the event-id source), and the
    // warnings the host handed the turn (RunTurnInput.warnings, emitted right after running).
    const own = events.filter((event) => event.type !== "runtime.warning");
    const between = own.slice(1, -1).filter((event) => event.type !== "debug.trace");
    if (between.length > 0 || (!options.writerFails && own.length > 3))
      fail(
        `a turn aborted before it started emitted ${events.map((event) => event.type).join(", ")} (expected running, aborted)`,
      );
  }
  return outcome;
}
