/**
 * fast-check generators for what the host does: actions at random moments
 * (by event count or virtual time), hook decisions (every decision of each
 * hook, and throws), the event writer and the steering callbacks.
 */
import fc from "fast-check";
import { oneIn } from "./response-arbitraries.js";
import type {
  ListenerChurnSpec,
  AfterLlmDecision,
  AllocatorFailureSpec,
  AfterToolDecision,
  AgentHookSpec,
  BeforeLlmDecision,
  BeforeToolDecision,
  HostAction,
  ListenerFailureSpec,
  RetrySpec,
  SlowWriterSpec,
  SteeringSpec,
  ToolStartDecision,
  Trigger,
  TurnHookSpec,
  WriterSpec,
} from "./scenario.js";

const triggerArbitrary: fc.Arbitrary<Trigger> = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 60 }).map((index): Trigger => ({ kind: "event", index })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 20_000 }).map((ms): Trigger => ({ kind: "time", ms })) },
);

/** Host actions; `abort` can be left out when a scenario must end on its own, `agentOnly` adds the actions only an `Agent` takes (`malformed`, `clear`). */
export function hostActionsArbitrary(options: {
  abort: boolean;
  maxLength: number;
  agentOnly?: boolean;
}): fc.Arbitrary<HostAction[]> {
  const kinds: fc.WeightedArbitrary<HostAction["kind"]>[] = [
    { weight: 3, arbitrary: fc.constant("steer" as const) },
    { weight: 2, arbitrary: fc.constant("steerBatch" as const) },
    { weight: 2, arbitrary: fc.constant("followUp" as const) },
  ];
  if (options.abort) kinds.push({ weight: 2, arbitrary: fc.constant("abort" as const) });
  if (options.agentOnly) {
    kinds.push({ weight: 1, arbitrary: fc.constant("malformed" as const) });
    kinds.push({ weight: 1, arbitrary: fc.constant("clear" as const) });
  }
  const trigger = options.agentOnly
    ? fc.oneof(
        { weight: 6, arbitrary: triggerArbitrary },
        { weight: 1, arbitrary: fc.constant<Trigger>({ kind: "agentEnd" }) },
      )
    : triggerArbitrary;
  // The runner leaves out steering that says nothing; an Agent sends it as pi's does (conformance, steer-empty-text).
  const blank = options.agentOnly ? fc.constant(undefined) : oneIn(4, fc.constantFrom("one" as const, "all" as const));
  const action = fc
    .record({ trigger, kind: fc.oneof(...kinds), variant: fc.nat({ max: 63 }), blank })
    .map(({ variant, blank, ...rest }): HostAction => {
      if (rest.kind === "malformed") return { ...rest, variant };
      return blank !== undefined && rest.kind !== "abort" && rest.kind !== "clear" ? { ...rest, blank } : rest;
    });
  return fc.array(action, { maxLength: options.maxLength });
}

/**
 * A hook as a list of decisions in call order, or absent. Mostly the
 * harmless `fallback`, so runs get past the hook often enough to reach the
 * seams after it.
 */
function decisions<T>(fallback: T, others: readonly T[], fallbackWeight = 3): fc.Arbitrary<T[] | undefined> {
  const decision = fc.oneof(
    { weight: fallbackWeight, arbitrary: fc.constant(fallback) },
    { weight: 2, arbitrary: fc.constantFrom(...others) },
  );
  return oneIn(2, fc.array(decision, { minLength: 1, maxLength: 6 }));
}

export const afterToolDecisions = decisions<AfterToolDecision>("none", [
  "patchContent",
  "isError",
  "terminate",
  "terminateAgent",
  "throw",
]);
const toolStartDecisions = decisions<ToolStartDecision>("observe", ["throw", "abort"]);

export const agentHooksArbitrary: fc.Arbitrary<AgentHookSpec> = fc.record({
  beforeToolCall: decisions<BeforeToolDecision>("allow", ["block", "terminateAgent", "throw", "abort", "revoked"]),
  afterToolCall: afterToolDecisions,
  onToolExecutionStart: toolStartDecisions,
  shouldStopAfterTurn: decisions<boolean | "throw" | "revoked">(false, [true, "throw", "revoked"]),
  shouldStopAfterSteering: decisions<boolean | "throw" | "revoked">(false, [true, "throw", "revoked"]),
  transformContext: decisions<"pass" | "throw" | "noArray" | "revoked">("pass", ["throw", "noArray", "revoked"]),
});

export const listenerFailureArbitrary: fc.Arbitrary<ListenerFailureSpec | undefined> = oneIn(
  5,
  fc.record({ index: fc.nat({ max: 40 }), mode: fc.constantFrom("throw" as const, "reject" as const) }),
);

/** A listener that changes the set of listeners during one event, now and then. */
export const listenerChurnArbitrary: fc.Arbitrary<ListenerChurnSpec | undefined> = oneIn(
  4,
  fc.record({ index: fc.nat({ max: 40 }), kind: fc.constantFrom("add" as const, "remove" as const, "move" as const) }),
);

export const turnHooksArbitrary: fc.Arbitrary<TurnHookSpec> = fc.record({
  beforeLlmCall: decisions<BeforeLlmDecision>("continue", [
    "skip",
    "respond",
    "replaceRequestMessages",
    "replaceMessages",
    "appendMessage",
    "abort",
    "throw",
    "invalid",
    "malformed",
    "edit",
    "unreadable",
    "revoked",
  ]),
  onLlmCallPrepared: decisions<"observe" | "throw" | "reject" | "edit" | "revoked">("observe", [
    "throw",
    "reject",
    "edit",
    "revoked",
  ]),
  afterLlmCall: decisions<AfterLlmDecision>("continue", [
    "replaceText",
    "retry",
    "fail",
    "throw",
    "invalid",
    "malformed",
    "edit",
    "unreadable",
    "revoked",
  ]),
  beforeToolCall: decisions<
    "allow" | "block" | "blockPermission" | "throw" | "abort" | "malformed" | "edit" | "unreadable" | "revoked"
  >("allow", ["block", "blockPermission", "throw", "abort", "malformed", "edit", "unreadable", "revoked"]),
  onToolExecutionStart: decisions<ToolStartDecision | "edit" | "revoked">("observe", [
    "throw",
    "abort",
    "edit",
    "revoked",
  ]),
  afterToolCall: decisions<AfterToolDecision | "malformed" | "edit" | "unreadable" | "revoked">("none", [
    "patchContent",
    "isError",
    "terminate",
    "terminateAgent",
    "throw",
    "malformed",
    "edit",
    "unreadable",
    "revoked",
  ]),
  // Called after nearly every message: mostly accept, or almost every turn would fail here.
  onHistoryChanged: decisions<"accept" | "throw" | "edit" | "revoked">("accept", ["throw", "edit", "revoked"], 12),
  onStepEnd: decisions<"none" | "enqueue" | "enqueueMalformed" | "enqueueBlank" | "throw" | "edit" | "revoked">(
    "none",
    ["enqueue", "enqueueMalformed", "enqueueBlank", "throw", "edit", "revoked"],
  ),
});

/**
 * A writer that answers late from some event on: on the virtual clock,
 * resolving or rejecting; with `never`, also one that never answers (each
 * such run waits out a real abort grace, so only where asked for).
 */
export function slowWriterArbitrary(options: { never: boolean; maxFrom: number }): fc.Arbitrary<SlowWriterSpec> {
  const late = fc.record({
    from: fc.nat({ max: options.maxFrom }),
    answer: fc.oneof(
      { weight: 3, arbitrary: fc.constant("resolve" as const) },
      { weight: 1, arbitrary: fc.constant("reject" as const) },
    ),
    ms: fc.oneof(
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 50 }) },
      { weight: 1, arbitrary: fc.integer({ min: 51, max: 5_000 }) },
    ),
  });
  if (!options.never) return late;
  return fc.oneof(
    { weight: 2, arbitrary: late },
    {
      weight: 1,
      arbitrary: fc.record({ from: fc.nat({ max: options.maxFrom }), answer: fc.constant("never" as const) }),
    },
  );
}

export const writerArbitrary: fc.Arbitrary<WriterSpec> = fc.record({
  asyncTicks: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
  ),
  failAt: oneIn(
    8,
    fc.record({
      index: fc.nat({ max: 40 }),
      mode: fc.constantFrom("throw" as const, "reject" as const, "thenableThrows" as const, "revoked" as const),
    }),
  ),
  slow: oneIn(4, slowWriterArbitrary({ never: false, maxFrom: 40 })),
});

export const allocatorFailureArbitrary: fc.Arbitrary<AllocatorFailureSpec | undefined> = oneIn(
  12,
  fc.record({
    target: fc.oneof(
      { weight: 3, arbitrary: fc.constant("message" as const) },
      { weight: 1, arbitrary: fc.constant("event" as const) },
    ),
    index: fc.nat({ max: 12 }),
    mode: fc.constantFrom("throw" as const, "reject" as const, "empty" as const, "number" as const, "revoked" as const),
  }),
);

const flags = oneIn(
  3,
  fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), {
    minLength: 1,
    maxLength: 4,
  }),
);

export const steeringArbitrary: fc.Arbitrary<SteeringSpec> = fc.record({
  pollThrowsAt: oneIn(8, fc.nat({ max: 4 })),
  // tryBeginClose refuses now and then ("new work won the race"); default accepts.
  tryBeginClose: oneIn(
    2,
    fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), {
      minLength: 1,
      maxLength: 4,
    }),
  ),
  shouldStopAfterSteering: flags,
  shouldStopAfterTurn: flags,
});

/** Retry on (small, deterministic policy on the virtual clock) or off. */
export const retryArbitrary: fc.Arbitrary<RetrySpec> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<RetrySpec>({ enabled: false }) },
  {
    weight: 3,
    arbitrary: fc.record({
      enabled: fc.constant(true as const),
      maxRetries: fc.integer({ min: 0, max: 5 }),
      baseDelayMs: fc.constantFrom(0, 10, 1_000),
      maxDelayMs: fc.constantFrom(50, 30_000),
      maxRetryElapsedMs: fc.constantFrom(100, 120_000),
      jitter: fc.double({ min: 0, max: 0.999, noNaN: true }),
    }),
  },
);
