/**
 * Generated turns with sub-agents: children that answer, fail, hang, reach
 * their budget or call a sub-agent of their own, spend against the
 * parent's budget, carry budgets of their own (often above the parent's),
 * or are run by a host layer with a budget no turn accepts.
 */
import fc from "fast-check";
import type { GenerationOptions } from "./known-bugs.js";
import { oneIn, mostly } from "./response-arbitraries.js";
import {
  hostAnswerArbitrary,
  turnScenarioArbitrary,
  withEveryNthCall,
  withIdsPerResponse,
} from "./scenario-arbitraries.js";
import type { ChildBehaviour, SubAgentSpec, TurnScenario } from "./scenario.js";

const childBehaviourArbitrary: fc.Arbitrary<ChildBehaviour> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("answer" as const),
      eventDelayMs: fc.constantFrom(0, 0, 5, 50),
      withTool: fc.boolean(),
      toolSteps: fc.constantFrom(1, 1, 2, 3),
      textless: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("fail" as const), afterEvents: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("hang" as const), afterEvents: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant<ChildBehaviour>({ kind: "toolHang" }) },
  { weight: 1, arbitrary: fc.constant<ChildBehaviour>({ kind: "overBudget" }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("hookHang" as const),
      hook: fc.constantFrom(
        "beforeLlmCallHook" as const,
        "afterLlmCallHook" as const,
        "beforeToolCallHook" as const,
        "onHistoryChangedHook" as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("nested" as const), inner: fc.constantFrom("answer", "fail", "hang") }),
  },
);

/** What each response of a child reports: mostly nothing; else a little or a lot against the parent's limits. */
const childSpendingArbitrary = fc.record({
  output: fc.constantFrom(1, 40, 300),
  cost: fc.constantFrom(0.0000005, 0.0005, 0.02),
});

/** A sub-agent's own budget: any of its limits, often above the parent's (which then lowers it). */
const childBudgetArbitrary = fc.record(
  {
    maxSteps: fc.integer({ min: 1, max: 2 }),
    maxOutputTokens: fc.constantFrom(1, 100, 5_000),
    maxCost: fc.constantFrom(0.0000001, 0.01, 1),
  },
  { requiredKeys: [] },
);

/** A field of a budget no turn accepts, as a host layer might hand it over for one call. */
const invalidCallBudgetArbitrary = fc.oneof(
  fc.record({ field: fc.constant("maxSteps" as const), value: fc.constantFrom<unknown>(0, -1, 1.5, "2") }),
  fc.record({ field: fc.constant("maxOutputTokens" as const), value: fc.constantFrom<unknown>(0, "5", Number.NaN) }),
  fc.record({
    field: fc.constant("maxCost" as const),
    value: fc.constantFrom<unknown>(-0.5, Number.POSITIVE_INFINITY, "1"),
  }),
);

/**
 * The turn's `hookTimeoutMs` when a child's hook never answers: above any
 * delay the scenario's own hooks and writer take on the virtual clock, so
 * only the hung hook reaches it.
 */
const CHILD_HOOK_TIMEOUT_MS = 30_000;

/** Tasks a sub-agent refuses without asking its model. */
const BLANK_TASKS = ["", "   ", "\n\t"];

/**
 * Generated turns that offer one to three sub-agents (children that answer,
 * fail, hang, reach their budget or call a sub-agent of their own, and whose
 * tool asks the host a question when the host answers questions), with
 * every `every`-th tool call of the script calling one of them. Host
 * actions (aborts among them) land while children run. The writer never
 * stalls, so no event of a child is announced as dropped.
 */
export function subAgentTurnArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .record({
      base: turnScenarioArbitrary(options),
      agents: fc.array(
        fc.record({
          child: childBehaviourArbitrary,
          executionMode: fc.constantFrom("parallel" as const, "sequential" as const),
          spends: oneIn(2, childSpendingArbitrary),
          budget: oneIn(2, childBudgetArbitrary),
          invalidCallBudget: oneIn(8, invalidCallBudgetArbitrary),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      every: fc.integer({ min: 1, max: 3 }),
      // A host that answers questions: the children's `probe` then asks it one.
      hostAnswers: oneIn(2, fc.array(hostAnswerArbitrary, { maxLength: 8 })),
      // A model that names each response's calls c0, c1, ... (ids reused across responses).
      reusedIds: fc.boolean(),
      // Now and then a call with an empty or blank task, which must be refused without a child turn.
      blankEvery: mostly(3, fc.integer({ min: 1, max: 4 })),
      // Now and then children that spend side by side against a limit the turn's first response leaves room under.
      shared: oneIn(4, fc.integer({ min: 41, max: 200 })),
    })
    .map(({ base, agents, every, hostAnswers, reusedIds, blankEvery, shared }): TurnScenario => {
      const subAgents: SubAgentSpec[] = agents.map(({ spends, budget, invalidCallBudget, ...agent }, index) => ({
        name: `sub${index + 1}`,
        ...agent,
        ...(spends && { spends }),
        ...(budget && { budget }),
        ...(invalidCallBudget && { invalidCallBudget }),
      }));
      if (shared !== undefined) return sideBySide(base, subAgents, shared, hostAnswers);
      const hookHangs = subAgents.some((agent) => agent.child.kind === "hookHang");
      const calling = withEveryNthCall(base.requests, every, (call, count) => {
        const agent = subAgents[count % subAgents.length]!;
        const blank = blankEvery !== undefined && count % blankEvery === 0;
        const task = blank ? BLANK_TASKS[count % BLANK_TASKS.length]! : `task of ${call.id}`;
        return { ...call, tool: agent.name, args: { kind: "task" as const, task } };
      });
      const requests = reusedIds ? withIdsPerResponse(calling) : calling;
      return {
        ...base,
        requests,
        subAgents,
        ...(hostAnswers !== undefined && { hostAnswers }),
        ...(hookHangs && { hookTimeoutMs: CHILD_HOOK_TIMEOUT_MS }),
        writer: { ...base.writer, slow: undefined },
      };
    });
}

/**
 * A turn whose every tool call runs a sub-agent, side by side: each child
 * calls a tool in three responses before it answers, each response
 * spending 40 output tokens, and the turn's output-token limit leaves
 * `room` above what its first response spends, so the children reach it
 * together, each with requests still to send.
 */
function sideBySide(
  base: TurnScenario,
  agents: SubAgentSpec[],
  room: number,
  hostAnswers: TurnScenario["hostAnswers"] | undefined,
): TurnScenario {
  const subAgents = agents.map(
    ({ budget: _own, invalidCallBudget: _bad, ...agent }): SubAgentSpec => ({
      ...agent,
      child: { kind: "answer", eventDelayMs: 0, withTool: true, toolSteps: 3 },
      executionMode: "parallel",
      spends: { output: 40, cost: 0.0005 },
    }),
  );
  const requests = withEveryNthCall(base.requests, 1, (call, count) => ({
    ...call,
    tool: subAgents[count % subAgents.length]!.name,
    args: { kind: "task" as const, task: `task of ${call.id}` },
  }));
  const first = requests[0]?.response.usage?.output ?? 0;
  const spent = Number.isFinite(first) && first >= 0 ? first : 0;
  return {
    ...base,
    requests,
    subAgents,
    budget: { maxOutputTokens: spent + room },
    ...(hostAnswers !== undefined && { hostAnswers }),
    writer: { ...base.writer, slow: undefined },
  };
}
