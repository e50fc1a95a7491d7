/**
 * Whole scenarios for the properties: an `Agent` run, a `PiTurnRunner` turn,
 * and a turn biased toward provider failures and retries.
 */
import fc from "fast-check";
import {
  agentHooksArbitrary,
  allocatorFailureArbitrary,
  hostActionsArbitrary,
  listenerFailureArbitrary,
  retryArbitrary,
  steeringArbitrary,
  turnHooksArbitrary,
  writerArbitrary,
} from "./host-arbitraries.js";
import {
  providerFailureArbitrary,
  requestArbitrary,
  responseArbitrary,
  toolModesArbitrary,
  withRequestIds,
  withResponseIds,
} from "./response-arbitraries.js";
import type { GenerationOptions } from "./known-bugs.js";
import type {
  AgentScenario,
  ChildBehaviour,
  SubAgentSpec,
  Delay,
  ResponseSpec,
  RetrySpec,
  ToolBehaviour,
  TurnHookSpec,
  TurnScenario,
} from "./scenario.js";

export function agentScenarioArbitrary(_options: GenerationOptions): fc.Arbitrary<AgentScenario> {
  return fc
    .record({
      requests: fc.array(responseArbitrary({ hangs: true, maxCalls: 6 }), { minLength: 1, maxLength: 4 }),
      toolModes: toolModesArbitrary,
      toolExecution: fc.constantFrom("parallel" as const, "sequential" as const),
      steeringMode: fc.constantFrom("one-at-a-time" as const, "all" as const),
      followUpMode: fc.constantFrom("one-at-a-time" as const, "all" as const),
      hooks: agentHooksArbitrary,
      actions: hostActionsArbitrary({ abort: true, maxLength: 4 }),
      listenerFailure: listenerFailureArbitrary,
      listenerTicks: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
      ),
      continueWhileQueued: fc.boolean(),
      withHistory: fc.boolean(),
    })
    .map((scenario) => ({ ...scenario, requests: withResponseIds(scenario.requests) }));
}

export function turnScenarioArbitrary(_options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .record({
      requests: fc.array(requestArbitrary({ hangs: true, maxCalls: 6, maxFailures: 2 }), {
        minLength: 1,
        maxLength: 4,
      }),
      toolModes: toolModesArbitrary,
      hooks: turnHooksArbitrary,
      actions: hostActionsArbitrary({ abort: true, maxLength: 4 }),
      writer: writerArbitrary,
      allocatorFailure: allocatorFailureArbitrary,
      steering: steeringArbitrary,
      retry: retryArbitrary,
      streamTimeouts: fc.constantFrom("default" as const, "off" as const),
      abortBeforeStart: fc.oneof(
        { weight: 30, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      withHistory: fc.boolean(),
      beforeUserMessages: fc.boolean(),
    })
    .map((scenario) => ({ ...scenario, requests: withRequestIds(scenario.requests) }));
}

const NO_HOOKS: TurnHookSpec = {
  beforeLlmCall: undefined,
  onLlmCallPrepared: undefined,
  afterLlmCall: undefined,
  beforeToolCall: undefined,
  onToolExecutionStart: undefined,
  afterToolCall: undefined,
  onHistoryChanged: undefined,
  onStepEnd: undefined,
};

/**
 * Turns where most requests fail first (429 / 503 / 401 ..., before or after
 * visible output), with retry on, hangs ended by the stream watchdogs, and
 * an abort now and then (also during a backoff wait).
 */
export function providerFailureTurnArbitrary(_options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .record({
      requests: fc.array(
        fc.record({
          failures: fc.array(providerFailureArbitrary, { minLength: 0, maxLength: 4 }),
          response: responseArbitrary({ hangs: true, maxCalls: 2 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      retry: retryArbitrary.filter((retry): retry is Extract<RetrySpec, { enabled: true }> => retry.enabled),
      actions: hostActionsArbitrary({ abort: true, maxLength: 2 }),
      streamTimeouts: fc.constantFrom("default" as const, "off" as const),
      toolModes: toolModesArbitrary,
    })
    .map(
      ({ requests, retry, actions, streamTimeouts, toolModes }): TurnScenario => ({
        requests: withRequestIds(requests),
        toolModes,
        hooks: NO_HOOKS,
        actions,
        writer: { asyncTicks: 0, failAt: undefined, slow: undefined },
        allocatorFailure: undefined,
        steering: {
          pollThrowsAt: undefined,
          tryBeginClose: undefined,
          shouldStopAfterSteering: undefined,
          shouldStopAfterTurn: undefined,
        },
        retry,
        streamTimeouts,
        abortBeforeStart: false,
        withHistory: false,
        beforeUserMessages: false,
      }),
    );
}

const childBehaviourArbitrary: fc.Arbitrary<ChildBehaviour> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("answer" as const),
      eventDelayMs: fc.constantFrom(0, 0, 5, 50),
      withTool: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("fail" as const), afterEvents: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("hang" as const), afterEvents: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant<ChildBehaviour>({ kind: "toolHang" }) },
  { weight: 1, arbitrary: fc.constant<ChildBehaviour>({ kind: "overBudget" }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("nested" as const), inner: fc.constantFrom("answer", "fail", "hang") }),
  },
);

/**
 * Generated turns that offer one to three sub-agents (children that answer,
 * fail, hang, reach their budget or call a sub-agent of their own), with
 * every `every`-th tool call of the script calling one of them. Host
 * actions (aborts among them) land while children run. The writer never
 * stalls, so no event of a child is announced as dropped.
 */
export function subAgentTurnArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .record({
      base: turnScenarioArbitrary(options),
      agents: fc.array(
        fc.record({ child: childBehaviourArbitrary, executionMode: fc.constantFrom("parallel", "sequential") }),
        { minLength: 1, maxLength: 3 },
      ),
      every: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ base, agents, every }): TurnScenario => {
      const subAgents: SubAgentSpec[] = agents.map((agent, index) => ({ name: `sub${index + 1}`, ...agent }));
      let calls = 0;
      const requests = base.requests.map((request) => ({
        ...request,
        response: {
          ...request.response,
          calls: request.response.calls.map((call) => {
            calls++;
            if (calls % every !== 0) return call;
            const agent = subAgents[calls % subAgents.length]!;
            return { ...call, tool: agent.name, args: { kind: "task" as const, task: `task of ${call.id}` } };
          }),
        },
      }));
      return { ...base, requests, subAgents, writer: { ...base.writer, slow: undefined } };
    });
}
