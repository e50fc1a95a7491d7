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
