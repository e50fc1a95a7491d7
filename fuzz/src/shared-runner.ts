/**
 * The `runner-shared` property: two to four generated turns started at once
 * on one `PiTurnRunner`, on one virtual clock, each compared with the same
 * turn run alone (invariant 12). Hosts run many sessions on one runner; a
 * runner that caches anything per runner (call stacks, tracers, ids) must
 * keep every turn's requests, retries and messages to itself.
 */
import fc from "fast-check";
import type { PiTurnRunnerOptions } from "@turnkit/agent-core";
import { createVirtualClock } from "@turnkit/agent-loop/testing";
import { checkTurnIndependent } from "./invariants/turns-independent.js";
import type { GenerationOptions } from "./known-bugs.js";
import { checkTurnObservation } from "./observation-checks.js";
import { type TurnRunObservation, observeTurn, observeTurnsTogether } from "./observe-turn.js";
import { prepareTurnScenario } from "./run-turn-scenario.js";
import { providerFailureTurnArbitrary, turnScenarioArbitrary } from "./scenario-arbitraries.js";
import type { TurnScenario } from "./scenario.js";

/** Several turns for one runner; every turn with retry on uses the same jitter (the runner has one jitter source). */
export function sharedRunnerArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario[]> {
  const turn = fc.oneof(
    { weight: 3, arbitrary: turnScenarioArbitrary(options) },
    { weight: 1, arbitrary: providerFailureTurnArbitrary(options) },
  );
  return fc
    .tuple(
      fc.array(turn, { minLength: 2, maxLength: 4 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    )
    .map(([scenarios, jitter]) =>
      scenarios.map((scenario) =>
        scenario.retry.enabled ? { ...scenario, retry: { ...scenario.retry, jitter } } : scenario,
      ),
    );
}

const placement = (index: number) => ({ sessionId: `session-${index}`, turnId: `turn-${index}` });

/**
 * Runs each scenario alone (every invariant checked), then the ones whose
 * solo run used virtual time only (no watchdog abort, no real-time abort
 * grace: only those are deterministic) together on one runner, and compares
 * each with its solo run.
 */
export async function checkSharedRunner(scenarios: readonly TurnScenario[]): Promise<void> {
  const deterministic: number[] = [];
  const alone: TurnRunObservation[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const prepared = prepareTurnScenario(scenario, { clock: createVirtualClock(), ...placement(index) });
    const observation = await observeTurn(prepared.options);
    checkTurnObservation(scenario, {
      ...observation,
      respondTexts: prepared.respondTexts,
      llmDecisions: prepared.llmDecisions,
      hostile: prepared.hostile,
    });
    alone.push(observation);
    // A paced solo run interleaves differently from the unpaced run together: checked above, not compared.
    if (scenario.pacing === undefined && !observation.drive.watchdogAborted && observation.graceWaits.length === 0)
      deterministic.push(index);
  }
  if (deterministic.length < 2) return;

  const clock = createVirtualClock();
  const prepared = deterministic.map((index) => prepareTurnScenario(scenarios[index]!, { clock, ...placement(index) }));
  const byTurn = new Map(prepared.map((turn) => [turn.options.input.turnId, turn.runnerOptions]));
  const runnerOptions: Omit<PiTurnRunnerOptions, "clock"> = {
    // The jitter every turn with retry on was given (a turn without retry never draws one).
    random: (prepared.find((_, position) => scenarios[deterministic[position]!]!.retry.enabled) ?? prepared[0]!)
      .runnerOptions.random,
    // Each turn keeps its own allocator (its ids and its scripted failure), as it had alone.
    allocateMessageId: (context) => byTurn.get(context.turnId)!.allocateMessageId!(context),
  };
  const together = await observeTurnsTogether(
    prepared.map((turn) => turn.options),
    runnerOptions,
  );
  for (const [position, index] of deterministic.entries())
    checkTurnIndependent(`turn ${index}`, together[position]!, alone[index]!);
}
