/**
 * Invariant 33: a batch runs one call at a time when it must. A response's
 * calls run one after another (none starts while another of the batch
 * still runs) when any tool it calls is sequential: declared so, or a
 * `RuntimeTool` that declares no mode (a runner's default). Checked on the
 * scenario's own tools, whose starts and ends the tools note.
 */
import type { TurnScenario } from "../scenario.js";
import type { ToolRuns } from "../scenario-tools.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "33 a batch with a sequential tool runs one call at a time";

/**
 * Throws when a call of a sequential batch started while another call of
 * that batch was running. Cases whose call ids repeat across responses
 * (a model naming calls `c0`, `c1`, ... in each) or that call sub-agents
 * are left to the other invariants: a call id there does not name one batch.
 */
export function checkExecutionModes(scenario: TurnScenario, runs: ToolRuns): void {
  if (scenario.subAgents !== undefined) return;
  const batchOf = new Map<string, number>();
  const sequential: boolean[] = [];
  for (const [index, request] of scenario.requests.entries()) {
    for (const call of request.response.calls) {
      if (batchOf.has(call.id)) return;
      batchOf.set(call.id, index);
    }
    sequential.push(
      request.response.calls.some((call) => {
        const modes = scenario.toolModes as Record<string, "parallel" | "sequential" | undefined>;
        return call.tool in modes && modes[call.tool] !== "parallel";
      }),
    );
  }
  for (const { callId, running } of runs.starts) {
    const batch = batchOf.get(callId);
    if (batch === undefined || !sequential[batch]) continue;
    const overlapping = running.filter((other) => batchOf.get(other) === batch);
    if (overlapping.length > 0)
      throw new InvariantViolation(
        INVARIANT,
        `call ${callId} started while ${overlapping.join(", ")} of its batch (response ${batch + 1}, which calls a sequential tool) still ran`,
      );
  }
}
