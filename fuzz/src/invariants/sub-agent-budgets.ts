/**
 * Invariant 24: a sub-agent call keeps to the budgets above it.
 *
 * - A call a host layer ran with a definition whose budget has a bad field
 *   is refused naming that field (`details.outcome` `refused`, the
 *   sub-agent's name), and no child turn of that sub-agent starts.
 * - A call refused because the turn's output-token or cost limit is spent
 *   names a limit of the turn that the turn's totals did reach.
 * - A child that failed on its budget names its own step limit, or an
 *   output-token or cost limit no higher than its own and the parent's
 *   (the parent's lowers the child's to what is left).
 * - A child keeps to the lower of its own and its parent's output-token and
 *   cost limits as a turn keeps to its own (invariant 22): once a step of
 *   it closed with its totals at that limit, it made no further attempt.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import type { SubAgentSpec, TurnScenario } from "../scenario.js";
import { childBudget } from "../sub-agent-tools.js";
import { type Budget, checkNoAttemptPastALimit } from "./turn-budget.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "24 a sub-agent call keeps to the budgets above it";

/** `events`: every event the writer was offered; `history`: every message the turn offered the host; `agents`: its sub-agents; `budget`: its own. */
export function checkSubAgentBudgets(
  outcome: TurnOutcome,
  events: readonly RuntimeEvent[],
  history: readonly AgentMessage[],
  agents: readonly SubAgentSpec[],
  budget: TurnScenario["budget"],
): void {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, detail);
  };
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  for (const message of history) {
    if (message.role !== "toolResult") continue;
    const agent = byName.get(message.toolName);
    if (!agent) continue;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const details = message.details as { agent?: unknown; outcome?: unknown } | undefined;
    const bad = agent.invalidCallBudget;
    if (bad && text.includes(`budget.${bad.field}`)) {
      if (details?.agent !== agent.name || details.outcome !== "refused" || !message.isError)
        fail(
          `call ${message.toolCallId} with a bad budget.${bad.field}: ${describeValue(text)}, details ${describeValue(details)}, not a refusal of ${agent.name}`,
        );
    }
    // A refusal of such a call (as the runner wrote it: a hook may patch a result) names the bad field,
    // unless a check before the definition's refused it first.
    if (bad && details?.outcome === "refused" && text.startsWith(`Sub-agent "${agent.name}" was not run: `)) {
      const earlier = ["levels deep", "its task is empty", "is spent"].some((reason) => text.includes(reason));
      if (!earlier && !text.includes(`budget.${bad.field}`))
        fail(
          `call ${message.toolCallId} with a bad budget.${bad.field} was refused without naming it: ${describeValue(text)}`,
        );
    }
    const spent = /the turn's (?:output token|cost) limit \((maxOutputTokens|maxCost) ([^)]+)\) is spent/.exec(text);
    if (spent && details?.outcome === "refused") {
      const limit = spent[1] as "maxOutputTokens" | "maxCost";
      const max = Number(spent[2]);
      const total = limit === "maxCost" ? outcome.usage?.total.cost.total : outcome.usage?.total.output;
      if (budget?.[limit] !== max)
        fail(`call ${message.toolCallId} refused on ${limit} ${max}; the turn's is ${budget?.[limit]}`);
      if (total !== undefined && !(total >= max))
        fail(`call ${message.toolCallId} refused on ${limit} ${max}, but the turn's total is ${total}`);
    }
  }
  for (const call of outcome.subAgentCalls ?? []) {
    const agent = byName.get(call.agent);
    if (!agent) continue;
    if (agent.invalidCallBudget)
      fail(`${call.agent} runs every call with a bad budget, yet its child turn ${call.turnId} ran`);
    const own = childBudget(agent);
    const lower = (limit: "maxOutputTokens" | "maxCost") => {
      const values = [own?.[limit], budget?.[limit]].filter((value) => value !== undefined);
      return values.length > 0 ? Math.min(...values) : undefined;
    };
    const spending: Budget = { maxOutputTokens: lower("maxOutputTokens"), maxCost: lower("maxCost") };
    const childEvents = events.filter((event) => event.origin?.turnId === call.turnId);
    checkNoAttemptPastALimit(call.usage, childEvents, spending, `sub-agent turn ${call.turnId}`);
    const named = call.error?.budget;
    if (!named) continue;
    if (named.limit === "maxSteps") {
      if (named.max !== own?.maxSteps)
        fail(`${call.turnId} failed on maxSteps ${named.max}; its own is ${own?.maxSteps}`);
      continue;
    }
    const max = lower(named.limit);
    if (max === undefined) fail(`${call.turnId} failed on ${named.limit}, which neither it nor its parent has`);
    else if (named.max > max)
      fail(
        `${call.turnId} failed on ${named.limit} ${named.max}, above its own ${own?.[named.limit]} or the parent's ${budget?.[named.limit]}`,
      );
  }
}
