/**
 * Whole scenarios for the properties: an `Agent` run, a `PiTurnRunner` turn,
 * and a turn biased toward provider failures and retries.
 */
import fc from "fast-check";
import {
  agentHooksArbitrary,
  allocatorFailureArbitrary,
  hostActionsArbitrary,
  listenerChurnArbitrary,
  listenerFailureArbitrary,
  retryArbitrary,
  steeringArbitrary,
  turnHooksArbitrary,
  writerArbitrary,
} from "./host-arbitraries.js";
import {
  oddEventsArbitrary,
  rareList,
  providerFailureArbitrary,
  requestArbitrary,
  responseArbitrary,
  toolModesArbitrary,
  withRequestIds,
  withResponseIds,
  oneIn,
} from "./response-arbitraries.js";
import { budgetBoundaryArbitrary, turnBudgetArbitrary, withBudgetBoundary } from "./budget-arbitraries.js";
import type { GenerationOptions } from "./known-bugs.js";
import { handWrittenStreamsArbitrary } from "./hand-written-streams.js";
import { wholeBlocksArbitrary } from "./whole-blocks.js";
import type {
  AgentScenario,
  AskSpec,
  CallSpec,
  RequestSpec,
  HostAnswerSpec,
  Delay,
  OddToolAnswer,
  ResponseSpec,
  RetrySpec,
  ToolBehaviour,
  TurnHookSpec,
  TurnScenario,
} from "./scenario.js";

/** A third of the runs are paced (see `TurnScenario.pacing`). */
const pacingArbitrary = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 0x7fffffff }) },
);

export function agentScenarioArbitrary(_options: GenerationOptions): fc.Arbitrary<AgentScenario> {
  return fc
    .record({
      requests: fc.array(responseArbitrary({ hangs: true, maxCalls: 6 }), { minLength: 1, maxLength: 4 }),
      toolModes: toolModesArbitrary,
      toolExecution: fc.constantFrom("parallel" as const, "sequential" as const),
      steeringMode: fc.constantFrom("one-at-a-time" as const, "all" as const),
      followUpMode: fc.constantFrom("one-at-a-time" as const, "all" as const),
      hooks: agentHooksArbitrary,
      actions: hostActionsArbitrary({ abort: true, maxLength: 4, agentOnly: true }),
      listenerFailure: listenerFailureArbitrary,
      listenerChurn: listenerChurnArbitrary,
      listenerTicks: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
      ),
      continueWhileQueued: fc.boolean(),
      withHistory: fc.boolean(),
      pacing: pacingArbitrary,
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
      budget: turnBudgetArbitrary,
      budgetBoundary: budgetBoundaryArbitrary,
      abortBeforeStart: fc.oneof(
        { weight: 30, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      withHistory: fc.boolean(),
      beforeUserMessages: fc.boolean(),
      pacing: pacingArbitrary,
      hostWarnings: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      // Which responses (by index) end with a malformed final message: rarely any.
      malformed: rareList(fc.nat({ max: 3 })),
      oddEvents: oddEventsArbitrary,
      // Which responses (by index) report a usage that cannot be read: rarely any.
      unreadable: rareList(fc.tuple(fc.nat({ max: 3 }), fc.constantFrom("revoked" as const, "getter" as const)), 2),
      handWritten: handWrittenStreamsArbitrary,
      wholeBlocks: wholeBlocksArbitrary,
      livePartials: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      // Which tool calls (counted across the script) hand their result over oddly: rarely any.
      oddAnswers: rareList(fc.tuple(fc.nat({ max: 8 }), fc.constantFrom(...ODD_TOOL_ANSWERS)), 3),
      hooksAnswerTwice: fc.oneof(
        { weight: 7, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    })
    .map(
      ({
        malformed,
        oddEvents,
        unreadable,
        budget,
        budgetBoundary,
        handWritten,
        wholeBlocks,
        livePartials,
        oddAnswers,
        hooksAnswerTwice,
        ...scenario
      }) => {
        const requests = withOddAnswers(withRequestIds(scenario.requests), oddAnswers);
        const withText = (index: number) => requests[index]?.response.text !== undefined;
        const malformedFinals = requests
          .filter((request, index) => malformed.includes(index) && withText(index))
          .map((request) => request.response.token);
        const malformedEvents = oddEvents
          .filter(([index]) => withText(index))
          .map(([index, event]) => ({ token: requests[index]!.response.token, event }));
        const unreadableUsage = unreadable
          .filter(([index]) => withText(index))
          .map(([index, kind]) => ({ token: requests[index]!.response.token, kind }));
        const bounded = withBudgetBoundary(budget, requests, budgetBoundary);
        return {
          ...scenario,
          requests,
          ...(bounded && { budget: bounded }),
          ...(malformedFinals.length > 0 && { malformedFinals }),
          ...(malformedEvents.length > 0 && { malformedEvents }),
          ...(unreadableUsage.length > 0 && { unreadableUsage }),
          ...(handWritten.length > 0 && { handWrittenStreams: handWritten }),
          ...(wholeBlocks.length > 0 && { wholeBlocks }),
          ...(livePartials && { livePartials }),
          ...(hooksAnswerTwice && { hooksAnswerTwice }),
        };
      },
    );
}

const ODD_TOOL_ANSWERS: readonly OddToolAnswer[] = [
  "thenableTwice",
  "resolveThenReject",
  "rejectThenResolve",
  "thenThrowsAfterResolve",
  "updateBurst",
  "abortOnReturn",
  "updateAfterTurn",
  "hugeLists",
];

/** The requests with the listed tool calls (by their place across the script, from 0), when they answer a result, answering it oddly. */
function withOddAnswers(requests: RequestSpec[], odd: readonly [number, OddToolAnswer][]): RequestSpec[] {
  if (odd.length === 0) return requests;
  let place = 0;
  return requests.map((request) => ({
    ...request,
    response: {
      ...request.response,
      calls: request.response.calls.map((call) => {
        const index = place++;
        const answer = odd.find(([at]) => at === index)?.[1];
        return answer && call.behaviour.kind === "result"
          ? { ...call, behaviour: { ...call.behaviour, oddAnswer: answer } }
          : call;
      }),
    },
  }));
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
      handWritten: handWrittenStreamsArbitrary,
      livePartials: fc.boolean(),
    })
    .map(
      ({ requests, retry, actions, streamTimeouts, toolModes, handWritten, livePartials }): TurnScenario => ({
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
        ...(handWritten.length > 0 && { handWrittenStreams: handWritten }),
        ...(livePartials && { livePartials }),
      }),
    );
}

/**
 * The requests with every `every`-th tool call of the script (counted
 * across requests, from 1) replaced by `replace(call, count)`.
 */
export function withEveryNthCall(
  requests: readonly RequestSpec[],
  every: number,
  replace: (call: CallSpec, count: number) => CallSpec,
): RequestSpec[] {
  let count = 0;
  return requests.map((request) => ({
    ...request,
    response: {
      ...request.response,
      calls: request.response.calls.map((call) => (++count % every === 0 ? replace(call, count) : call)),
    },
  }));
}

/**
 * The requests with each response's calls named `c0`, `c1`, ... as some
 * OpenAI-compatible servers name them, so later responses reuse the ids of
 * earlier ones. Calls sharing an id then share one behaviour (the last one
 * given under it).
 */
export function withIdsPerResponse(requests: readonly RequestSpec[]): RequestSpec[] {
  return requests.map((request) => ({
    ...request,
    response: {
      ...request.response,
      calls: request.response.calls.map((call, index) => ({ ...call, id: `c${index}` })),
    },
  }));
}

const askArbitrary: fc.Arbitrary<AskSpec> = fc.record({
  // 0 is no valid timeout: the question is refused without asking.
  timeoutMs: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(1, 50, 100) },
    { weight: 2, arbitrary: fc.constant("default" as const) },
    { weight: 1, arbitrary: fc.constant(0) },
  ),
  malformed: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  approval: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  unreadable: fc.oneof({ weight: 11, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/** One answer of the host to a question a tool asked: at once, late, wrong, thrown or never. */
export const hostAnswerArbitrary: fc.Arbitrary<HostAnswerSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<HostAnswerSpec>({ kind: "accept" }, { kind: "decline" }) },
  { weight: 2, arbitrary: fc.constantFrom<HostAnswerSpec>({ kind: "invalid" }, { kind: "throw" }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("late" as const),
      ms: fc.constantFrom(1, 50, 100, 5_000),
      answer: fc.constantFrom("accept" as const, "reject" as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant<HostAnswerSpec>({ kind: "never" }) },
);

/**
 * Generated turns whose tools ask the host (`ctx.askHost`, one to three
 * questions per call, timeouts on the virtual clock, some not valid) on
 * every `every`-th tool call of the script, and a host that answers at once,
 * late, wrongly, by throwing or never, or has no answer function. Host
 * actions (aborts among them) land while questions wait. The writer never
 * stalls, so every event reaches it.
 */
export function askHostTurnArbitrary(options: GenerationOptions): fc.Arbitrary<TurnScenario> {
  return fc
    .record({
      base: turnScenarioArbitrary(options),
      asks: fc.array(fc.array(askArbitrary, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
      hostAnswers: fc.oneof(
        { weight: 6, arbitrary: fc.array(hostAnswerArbitrary, { maxLength: 8 }) },
        { weight: 1, arbitrary: fc.constant("absent" as const) },
      ),
      every: fc.integer({ min: 1, max: 2 }),
      // An abort on the clock, often while a question waits.
      abortAtMs: oneIn(2, fc.constantFrom(1, 20, 50, 99, 150, 3_000)),
      // A model that names each response's calls c0, c1, ... (ids reused across responses).
      reusedIds: fc.boolean(),
    })
    .map(({ base, asks, hostAnswers, every, abortAtMs, reusedIds }): TurnScenario => {
      const asking = withEveryNthCall(base.requests, every, (call, count) => ({
        ...call,
        behaviour: { kind: "ask" as const, asks: asks[count % asks.length]! },
      }));
      const requests = reusedIds ? withIdsPerResponse(asking) : asking;
      const actions =
        abortAtMs === undefined
          ? base.actions
          : [...base.actions, { trigger: { kind: "time" as const, ms: abortAtMs }, kind: "abort" as const }];
      return { ...base, requests, actions, hostAnswers, writer: { ...base.writer, slow: undefined } };
    });
}
