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
import { type GenerationOptions, KNOWN_BUGS } from "./known-bugs.js";
import type { AgentScenario, Delay, ResponseSpec, RetrySpec, ToolBehaviour, TurnHookSpec, TurnScenario } from "./scenario.js";

/**
 * Known bug {@link KNOWN_BUGS.listenerFailureLeavesWorkRunning}: with a
 * failing listener, every stream and tool must end on its own within
 * microtasks (no hangs, no virtual-clock delays).
 */
function settleAlone(response: ResponseSpec): ResponseSpec {
  const quick = (delay: Delay): Delay => (delay.kind === "clock" ? { kind: "microtasks", count: 1 } : delay);
  const settlesAlone = (behaviour: ToolBehaviour): ToolBehaviour => {
    switch (behaviour.kind) {
      case "hang":
        return { kind: "throw", delay: { kind: "now" } };
      case "throw":
      case "result":
        return { ...behaviour, delay: quick(behaviour.delay) };
    }
  };
  return {
    ...response,
    eventDelayMs: 0,
    ending: response.ending.kind === "hang" ? { kind: "normal" } : response.ending,
    calls: response.calls.map((call) => ({ ...call, behaviour: settlesAlone(call.behaviour) })),
  };
}

function avoidListenerFailureLeak(scenario: AgentScenario): AgentScenario {
  if (!scenario.listenerFailure) return scenario;
  return { ...scenario, requests: scenario.requests.map(settleAlone) };
}

/**
 * The same bug through `PiTurnRunner`: its listener fails when the host's
 * message-id allocator does, so with a failing allocator every stream and
 * tool must end on its own within microtasks.
 */
function avoidAllocatorFailureLeak(scenario: TurnScenario): TurnScenario {
  if (!scenario.allocatorFailure) return scenario;
  return { ...scenario, requests: scenario.requests.map((request) => ({ ...request, response: settleAlone(request.response) })) };
}

export function agentScenarioArbitrary(options: GenerationOptions): fc.Arbitrary<AgentScenario> {
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
    listenerTicks: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
    continueWhileQueued: fc.boolean(),
    withHistory: fc.boolean(),
  })
  .map((scenario) => ({ ...scenario, requests: withResponseIds(scenario.requests) }))
  .map((scenario) => (options.avoidKnownBugs ? avoidListenerFailureLeak(scenario) : scenario));
}

export function turnScenarioArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
  .record({
    requests: fc.array(requestArbitrary({ hangs: true, maxCalls: 6, maxFailures: 2 }), { minLength: 1, maxLength: 4 }),
    toolModes: toolModesArbitrary,
    hooks: turnHooksArbitrary,
    actions: hostActionsArbitrary({ abort: true, maxLength: 4 }),
    writer: writerArbitrary,
    allocatorFailure: allocatorFailureArbitrary,
    steering: steeringArbitrary,
    retry: retryArbitrary,
    streamTimeouts: fc.constantFrom("default" as const, "off" as const),
    abortBeforeStart: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    withHistory: fc.boolean(),
    beforeUserMessages: fc.boolean(),
  })
  .map((scenario) => ({ ...scenario, requests: withRequestIds(scenario.requests) }))
  .map((scenario) => (options.avoidKnownBugs ? avoidAllocatorFailureLeak(scenario) : scenario));
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
      writer: { asyncTicks: 0, failAt: undefined },
      allocatorFailure: undefined,
      steering: { pollThrowsAt: undefined, tryBeginClose: undefined, shouldStopAfterSteering: undefined, shouldStopAfterTurn: undefined },
      retry,
      streamTimeouts,
      abortBeforeStart: false,
      withHistory: false,
      beforeUserMessages: false,
    }),
  );
}
