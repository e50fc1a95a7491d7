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
 *   (the parent's lowers the child's to what is left), or the parent's own
 *   limit, which the parent's totals with the children running beside it
 *   reached.
 * - A child keeps to the lower of its own and its parent's output-token and
 *   cost limits as a turn keeps to its own (invariant 22): once a step of
 *   it closed with its totals at that limit, it made no further attempt.
 * - Children running at once see each other's spending: the turn's total
 *   passes its output-token or cost limit by at most one request of each
 *   turn (its own and every child's, nested ones included), the largest
 *   each made.
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
  checkSharedSpending(outcome, events, budget, fail);
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
    if (call.error?.message.startsWith("A turn above this sub-agent reached")) {
      // The parent's limit, reached by the parent with the children running beside this one.
      if (named.max !== budget?.[named.limit])
        fail(
          `${call.turnId} failed on a limit above it, ${named.limit} ${named.max}; the turn's is ${budget?.[named.limit]}`,
        );
      if (!(named.measured >= named.max))
        fail(`${call.turnId} failed on the turn's ${named.limit} ${named.max}, measured at only ${named.measured}`);
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

/**
 * Once the turn's totals (its children's spending counted as it happens)
 * reach an output-token or cost limit, every turn of the tree sends at most
 * the one request it may have had on the way: the final total passes the
 * limit by no more than the largest request of each turn. A turn whose
 * spending no step report shows counts with all of it.
 */
function checkSharedSpending(
  outcome: TurnOutcome,
  events: readonly RuntimeEvent[],
  budget: TurnScenario["budget"],
  fail: (detail: string) => never,
): void {
  const total = outcome.usage?.total;
  if (!budget || !total) return;
  const largest = new Map<string, { output: number; cost: number }>();
  const stepTotals = new Map<string, { output: number; cost: number }>();
  for (const event of events) {
    if (event.type !== "stream.resp" || event.payload.chunk.kind !== "finish") continue;
    const step = event.payload.chunk.step;
    if (!step) continue;
    const turn = event.origin?.turnId ?? "";
    const most = largest.get(turn) ?? { output: 0, cost: 0 };
    largest.set(turn, {
      output: Math.max(most.output, step.usage.output),
      cost: Math.max(most.cost, step.usage.cost.total),
    });
    const sum = stepTotals.get(turn) ?? { output: 0, cost: 0 };
    stepTotals.set(turn, { output: sum.output + step.usage.output, cost: sum.cost + step.usage.cost.total });
  }
  // Every turn's own spending (its requests, sub-agents left out), from the reports of the outcome.
  const own = new Map<string, { output: number; cost: number }>();
  own.set("", {
    output: total.output - (outcome.usage?.subAgents?.output ?? 0),
    cost: total.cost.total - (outcome.usage?.subAgents?.cost.total ?? 0),
  });
  const visit = (calls: TurnOutcome["subAgentCalls"]) => {
    for (const call of calls ?? []) {
      const usage = call.usage;
      if (usage)
        own.set(call.turnId, {
          output: usage.total.output - (usage.subAgents?.output ?? 0),
          cost: usage.total.cost.total - (usage.subAgents?.cost.total ?? 0),
        });
      visit(call.subAgentCalls);
    }
  };
  visit(outcome.subAgentCalls);
  let allowedOutput = 0;
  let allowedCost = 0;
  for (const [turn, spent] of own) {
    const reported = stepTotals.get(turn) ?? { output: 0, cost: 0 };
    const most = largest.get(turn) ?? { output: 0, cost: 0 };
    // Spending no step report shows (a request that failed, an auxiliary one) may all be past the limit.
    allowedOutput += most.output + Math.max(0, spent.output - reported.output);
    allowedCost += most.cost + Math.max(0, spent.cost - reported.cost);
  }
  const { maxOutputTokens, maxCost } = budget;
  if (maxOutputTokens !== undefined && total.output > maxOutputTokens + allowedOutput)
    fail(
      `the turn spent ${total.output} output tokens with maxOutputTokens ${maxOutputTokens}: more than one request (${allowedOutput} at most) of each turn past the limit`,
    );
  if (maxCost !== undefined && total.cost.total > maxCost + allowedCost * (1 + 1e-9) + 1e-12)
    fail(
      `the turn spent ${total.cost.total} with maxCost ${maxCost}: more than one request (${allowedCost} at most) of each turn past the limit`,
    );
}
