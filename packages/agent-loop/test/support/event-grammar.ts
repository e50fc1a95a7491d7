import type { AgentEvent } from "../../src/index.js";
import { assertEventGrammar as assertGrammarOfRuns } from "../../src/testing/index.js";

export { describeEvent, traceOf } from "../../src/testing/index.js";

/**
 * The public event-grammar checker, held to exactly one run: every loop
 * test checks the events of a single `agentLoop` call or `prompt()`.
 */
export function assertEventGrammar(events: readonly AgentEvent[]): void {
  assertGrammarOfRuns(events, { runs: 1 });
}
