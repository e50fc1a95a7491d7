/**
 * Whole scenarios for the properties: an `Agent` run, a `PiTurnRunner` turn,
 * and a turn biased toward provider failures and retries.
 */
import fc from "fast-check";
import {
  agentHooksArbitrary,
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
import type { AgentScenario, RetrySpec, TurnHookSpec, TurnScenario } from "./scenario.js";

/**
 * Known bug {@link KNOWN_BUGS.listenerFailureLeavesRequestRunning}: with a
 * failing listener, every stream must end on its own within microtasks.
 */
function avoidListenerFailureLeak(scenario: AgentScenario): AgentScenario {
  if (!scenario.listenerFailure) return scenario;
  return {
    ...scenario,
    requests: scenario.requests.map((request) => ({
      ...request,
      eventDelayMs: 0,
      ending: request.ending.kind === "hang" ? { kind: "normal" } : request.ending,
    })),
  };
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

/**
 * Known bug {@link KNOWN_BUGS.writerFailureEventAfterTerminal}: the writer
 * may fail only synchronously, on one of the first four events (the terminal
 * status is never among them), and not in a turn aborted before it starts or
 * inside its first event.
 */
function avoidWriterFailureAfterTerminal(scenario: TurnScenario): TurnScenario {
  const { failAt } = scenario.writer;
  if (!failAt) return scenario;
  return {
    ...scenario,
    abortBeforeStart: false,
    // An abort inside the first event ends the turn at once: its terminal status would be event #1.
    actions: scenario.actions.filter((action) => !(action.kind === "abort" && action.trigger.kind === "event" && action.trigger.index === 0)),
    writer: { asyncTicks: 0, failAt: { ...failAt, index: failAt.index % 4 } },
  };
}

export function turnScenarioArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
  .record({
    requests: fc.array(requestArbitrary({ hangs: true, maxCalls: 6, maxFailures: 2 }), { minLength: 1, maxLength: 4 }),
    toolModes: toolModesArbitrary,
    hooks: turnHooksArbitrary,
    actions: hostActionsArbitrary({ abort: true, maxLength: 4 }),
    writer: writerArbitrary,
    steering: steeringArbitrary,
    retry: retryArbitrary,
    streamTimeouts: fc.constantFrom("default" as const, "off" as const),
    abortBeforeStart: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    withHistory: fc.boolean(),
    beforeUserMessages: fc.boolean(),
  })
  .map((scenario) => ({ ...scenario, requests: withRequestIds(scenario.requests) }))
  .map((scenario) => (options.avoidKnownBugs ? avoidWriterFailureAfterTerminal(scenario) : scenario));
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
      steering: { pollThrowsAt: undefined, tryBeginClose: undefined, shouldStopAfterSteering: undefined, shouldStopAfterTurn: undefined },
      retry,
      streamTimeouts,
      abortBeforeStart: false,
      withHistory: false,
      beforeUserMessages: false,
    }),
  );
}
