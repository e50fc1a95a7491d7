/**
 * The caller's abort at every point of a turn: a generated turn is run once
 * to count the events its writer is offered, then again with the host
 * aborting from inside its writer at one of them, chosen over the whole
 * turn, and one case in two at the very end (while the terminal status or
 * the event before it is being written), with its writer as generated
 * (late, failing, or answering from some event on never), and one turn in
 * four with a hostile host (hook members that are slow or hang, throwing
 * callbacks and loggers). Every turn
 * invariant must hold for the aborted run: `seq` without a gap, the
 * terminal status last and matching the outcome, nothing after it.
 */
import fc from "fast-check";
import type { GenerationOptions } from "./known-bugs.js";
import { checkTurnObservation } from "./observation-checks.js";
import { runTurnScenario } from "./run-turn-scenario.js";
import { turnScenarioArbitrary } from "./scenario-arbitraries.js";
import { hostileTurnArbitrary } from "./hostile-host-arbitraries.js";
import type { TurnScenario } from "./scenario.js";

/** A generated turn, and where its abort goes among the events the first run offered. */
export interface AbortAnywhereCase {
  turn: TurnScenario;
  /** Which event (taken modulo the count), or, with `nearEnd`, how far from the last one (0 or 1). */
  pick: number;
  nearEnd: boolean;
}

/** One turn in four has a hostile host (slow or hung hook members, throwing callbacks and loggers). */
export function abortAnywhereArbitrary(options: GenerationOptions): fc.Arbitrary<AbortAnywhereCase> {
  const turn = fc.oneof(
    { weight: 3, arbitrary: turnScenarioArbitrary(options) },
    { weight: 1, arbitrary: hostileTurnArbitrary(options) },
  );
  return fc.record({ turn, pick: fc.nat(), nearEnd: fc.boolean() });
}

/** Runs the turn, then again aborted at the chosen event, and checks every turn invariant on the second run. */
export async function checkAbortAnywhere({ turn, pick, nearEnd }: AbortAnywhereCase): Promise<void> {
  const first = await runTurnScenario(turn);
  const count = first.events.length;
  if (count === 0) return;
  const index = nearEnd ? Math.max(0, count - 1 - (pick % 2)) : pick % count;
  const aborted: TurnScenario = {
    ...turn,
    actions: [...turn.actions, { trigger: { kind: "event", index }, kind: "abort" }],
  };
  checkTurnObservation(aborted, await runTurnScenario(aborted));
}
