/**
 * fast-check generators for what the model does: responses (text, thinking,
 * 0–6 tool calls, stop reasons, stream faults), the behaviour of each tool
 * call, and provider failures before a response. Ids and tokens are
 * assigned after generation (`withIds`), so shrinking never breaks their
 * uniqueness.
 */
import fc from "fast-check";
import {
  type CallArguments,
  type CallSpec,
  type Delay,
  type MalformedResult,
  type ProviderFailureSpec,
  type RequestSpec,
  type ResponseSpec,
  type StreamEnding,
  TOOL_NAMES,
  type ToolBehaviour,
  type ToolModes,
  type MalformedEventKind,
  UNKNOWN_TOOL,
} from "./scenario.js";
import { reportedUsageArbitrary } from "./reported-usage.js";

/** Words of generated text: plain, accented, CJK, an emoji, JSON-ish punctuation. */
const WORDS = ["alpha", "beta", "done", "ok", "naïve", "数据", "🙂", '{"x":', "line\nbreak", "tab\there", "  spaced"];

export const textArbitrary: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 })
  .map((words) => words.join(" "));

/** Mostly immediate, sometimes a few microtasks, sometimes virtual time. */
export const delayArbitrary: fc.Arbitrary<Delay> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Delay>({ kind: "now" }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 8 }).map((count): Delay => ({ kind: "microtasks", count })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((ms): Delay => ({ kind: "clock", ms })) },
);

/** `arbitrary` in one case out of `oneIn`, else `undefined` (fc.option's `freq` counts the other way round). */
export function oneIn<T>(oneIn: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** `arbitrary` in all but one case out of `oneIn`, else `undefined`. */
export function mostly<T>(oneIn: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: oneIn - 1, arbitrary });
}

const rarely = (probability: "1/4" | "1/8"): fc.Arbitrary<boolean> =>
  fc.oneof(
    { weight: probability === "1/4" ? 3 : 7, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  );

export const toolBehaviourArbitrary: fc.Arbitrary<ToolBehaviour> = fc.oneof(
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant("result" as const),
      delay: delayArbitrary,
      updates: fc.nat({ max: 3 }),
      lateUpdate: rarely("1/4"),
      halfCharacter: rarely("1/8"),
      oddUpdateDetails: rarely("1/4"),
      oddUpdate: oneIn(8, fc.constantFrom("null" as const, "number" as const, "revoked" as const, "getter" as const)),
      oddResultDetails: rarely("1/4"),
      terminate: rarely("1/4"),
      isError: rarely("1/8"),
      malformed: oneIn(
        8,
        fc.constantFrom<MalformedResult>(
          "text-number",
          "undefined",
          "null",
          "string",
          "no-content",
          "content-not-list",
          "revoked",
          "throwing-getter",
        ),
      ),
      oddFlags: rarely("1/8"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("throw" as const),
      delay: delayArbitrary,
      unreadable: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant("revoked" as const) },
        { weight: 1, arbitrary: fc.constant("hugeList" as const) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant<ToolBehaviour>({ kind: "hang" }) },
);

const callArgumentsArbitrary: fc.Arbitrary<CallArguments> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom("a", "b", "42", "").map((value): CallArguments => ({ kind: "valid", value })),
  },
  { weight: 1, arbitrary: fc.constant<CallArguments>({ kind: "coercible", n: "42" }) },
  { weight: 1, arbitrary: fc.constant<CallArguments>({ kind: "invalid" }) },
  { weight: 1, arbitrary: fc.constant<CallArguments>({ kind: "prepareThrows" }) },
);

const callArbitrary: fc.Arbitrary<CallSpec> = fc.record({
  id: fc.constant(""),
  tool: fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom<string>(...TOOL_NAMES) },
    { weight: 1, arbitrary: fc.constant(UNKNOWN_TOOL) },
  ),
  args: callArgumentsArbitrary,
  behaviour: toolBehaviourArbitrary,
});

/** Provider error texts as pi-ai reports them: the HTTP status leads. */
const ERROR_TEXTS = [
  "503 Service Unavailable",
  "500 Internal Server Error",
  "boom: the scripted provider failed",
  "401 Unauthorized",
];

/** Stream endings: mostly normal, every fault of the scripted model now and then. */
export function streamEndingArbitrary(options: { hangs: boolean }): fc.Arbitrary<StreamEnding> {
  const faults: fc.WeightedArbitrary<StreamEnding>[] = [
    { weight: 30, arbitrary: fc.constant<StreamEnding>({ kind: "normal" }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("errorAfter" as const),
        events: fc.nat({ max: 14 }),
        message: fc.constantFrom(...ERROR_TEXTS),
      }),
    },
    { weight: 1, arbitrary: fc.constant<StreamEnding>({ kind: "throwSync" }) },
    { weight: 1, arbitrary: fc.constant<StreamEnding>({ kind: "reject" }) },
    { weight: 1, arbitrary: fc.constant<StreamEnding>({ kind: "endWithoutDone" }) },
    { weight: 1, arbitrary: fc.constant<StreamEnding>({ kind: "eventsAfterDone" }) },
    { weight: 1, arbitrary: fc.constant<StreamEnding>({ kind: "withoutStart" }) },
  ];
  if (options.hangs)
    faults.push({
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("hang" as const), afterEvents: fc.nat({ max: 8 }) }),
    });
  return fc.oneof(...faults);
}

/** Options shared by the response generators. */
export interface ResponseArbitraryOptions {
  /** Include `hang` endings (a hang is ended by an abort or a stream watchdog). */
  hangs: boolean;
  /** Largest number of tool calls in one response. */
  maxCalls: number;
}

export function responseArbitrary(options: ResponseArbitraryOptions): fc.Arbitrary<ResponseSpec> {
  return fc.record({
    token: fc.constant(""),
    thinking: oneIn(2, textArbitrary),
    text: mostly(5, textArbitrary),
    calls: fc.oneof(
      { weight: 2, arbitrary: fc.constant<CallSpec[]>([]) },
      { weight: 3, arbitrary: fc.array(callArbitrary, { minLength: 1, maxLength: Math.min(2, options.maxCalls) }) },
      { weight: 1, arbitrary: fc.array(callArbitrary, { minLength: 1, maxLength: options.maxCalls }) },
    ),
    stopReason: fc.oneof(
      { weight: 10, arbitrary: fc.constant("natural" as const) },
      { weight: 1, arbitrary: fc.constant("length" as const) },
      { weight: 1, arbitrary: fc.constant("aborted" as const) },
      { weight: 1, arbitrary: fc.constantFrom("stop" as const, "toolUse" as const) },
    ),
    ending: streamEndingArbitrary({ hangs: options.hangs }),
    eventDelayMs: fc.oneof(
      { weight: 5, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) },
    ),
    chunkSize: oneIn(3, fc.integer({ min: 1, max: 12 })),
    usage: oneIn(4, reportedUsageArbitrary),
  });
}

/** A provider failure before a response; statuses weighted toward the retryable ones. */
export const providerFailureArbitrary: fc.Arbitrary<ProviderFailureSpec> = fc.record({
  token: fc.constant(""),
  status: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(429 as const, 503 as const) },
    { weight: 2, arbitrary: fc.constantFrom(408 as const, 500 as const, 529 as const) },
    { weight: 2, arbitrary: fc.constantFrom(400 as const, 401 as const, 403 as const, 501 as const) },
  ),
  visible: rarely("1/4"),
  retryAfterSeconds: oneIn(4, fc.integer({ min: 0, max: 40 })),
});

export function requestArbitrary(
  options: ResponseArbitraryOptions & { maxFailures: number },
): fc.Arbitrary<RequestSpec> {
  return fc.record({
    failures: fc.oneof(
      { weight: 3, arbitrary: fc.constant<ProviderFailureSpec[]>([]) },
      { weight: 2, arbitrary: fc.array(providerFailureArbitrary, { minLength: 1, maxLength: options.maxFailures }) },
    ),
    response: responseArbitrary(options),
  });
}

export const toolModesArbitrary: fc.Arbitrary<ToolModes> = fc.record({
  alpha: fc.constantFrom("parallel" as const, "sequential" as const, undefined),
  beta: fc.constantFrom("parallel" as const, undefined),
  gamma: fc.constantFrom("parallel" as const, "sequential" as const, undefined),
  prepared: fc.constantFrom("parallel" as const, "sequential" as const),
});

/** Gives each response its token `rN` and each call the id `rNcI`, unique within the scenario. */
export function withResponseIds(responses: readonly ResponseSpec[]): ResponseSpec[] {
  return responses.map((spec, index) => identify(spec, `r${index + 1}`));
}

/** {@link withResponseIds} for requests; failed attempts get `rNfJ`. */
export function withRequestIds(requests: readonly RequestSpec[]): RequestSpec[] {
  return requests.map((request, index) => ({
    failures: request.failures.map((failure, attempt) => ({ ...failure, token: `r${index + 1}f${attempt + 1}` })),
    response: identify(request.response, `r${index + 1}`),
  }));
}

function identify(spec: ResponseSpec, token: string): ResponseSpec {
  return { ...spec, token, calls: spec.calls.map((call, index) => ({ ...call, id: `${token}c${index}` })) };
}

const ODD_EVENTS: MalformedEventKind[] = ["null", "string", "noType", "numberDelta", "nullToolCall", "unknownType"];

/** Which responses (by index) stream one odd event before their final one, and which: rarely any. */
export const oddEventsArbitrary: fc.Arbitrary<[number, MalformedEventKind][]> = rareList(
  fc.tuple(fc.nat({ max: 3 }), fc.constantFrom(...ODD_EVENTS)),
  2,
);

/** A list of `item`s for a rare fault (which responses get it): empty in six cases of seven. */
export function rareList<T>(item: fc.Arbitrary<T>, maxLength?: number): fc.Arbitrary<T[]> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<T[]>([]) },
    { weight: 1, arbitrary: fc.array(item, maxLength === undefined ? {} : { maxLength }) },
  );
}
