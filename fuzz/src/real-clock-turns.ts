/**
 * The runner's generated turns on a real clock: the scenarios of `runner`,
 * `runner-provider-failures`, `runner-sub-agents`, `runner-ask-host` and
 * `runner-hostile-host`, run with Node's timers sped up and jittered (see
 * `scaled-real-clock.ts`) instead of the virtual clock. A host that tests
 * its runner without our virtual clock sees timeouts, retries, tool delays,
 * the host's late answers and its timed actions race each other in real
 * time; every invariant of a generated turn must still hold, with the host
 * questions' times taken as lower bounds.
 */
import fc from "fast-check";
import type { GenerationOptions } from "./known-bugs.js";
import { askHostTurnArbitrary, providerFailureTurnArbitrary, turnScenarioArbitrary } from "./scenario-arbitraries.js";
import { subAgentTurnArbitrary } from "./sub-agent-arbitraries.js";
import { hostileTurnArbitrary } from "./hostile-host-arbitraries.js";
import { createScaledRealClock } from "./scaled-real-clock.js";
import { runTurnScenario } from "./run-turn-scenario.js";
import { checkTurnObservation } from "./observation-checks.js";
import { checkUIMessageStream } from "./invariants/ui-message-stream.js";
import type { TurnScenario } from "./scenario.js";

/** A generated turn and the real clock it runs on. */
export interface RealClockTurnCase {
  scenario: TurnScenario;
  /** Virtual milliseconds per real millisecond: 20 keeps a 100 ms timer 5 ms long; 2,000 makes most timers race. */
  scale: number;
  jitterSeed: number;
}

/** Turns of the runner's generated kinds, each on a real clock of a generated speed. */
export function realClockTurnArbitrary(options: GenerationOptions): fc.Arbitrary<RealClockTurnCase> {
  return fc.record({
    scenario: fc.oneof(
      { weight: 3, arbitrary: turnScenarioArbitrary(options) },
      { weight: 2, arbitrary: providerFailureTurnArbitrary(options) },
      { weight: 1, arbitrary: subAgentTurnArbitrary(options) },
      { weight: 1, arbitrary: askHostTurnArbitrary(options) },
      { weight: 1, arbitrary: hostileTurnArbitrary(options) },
    ),
    scale: fc.constantFrom(20, 200, 2_000),
    jitterSeed: fc.integer(),
  });
}

/** Runs the case's turn on its real clock and checks every invariant of a generated turn. */
export async function checkRealClockTurn({ scenario, scale, jitterSeed }: RealClockTurnCase): Promise<void> {
  const observation = await runTurnScenario(scenario, createScaledRealClock({ scale, jitterSeed }));
  checkTurnObservation(scenario, observation, "real");
  await checkUIMessageStream(observation.events);
}
