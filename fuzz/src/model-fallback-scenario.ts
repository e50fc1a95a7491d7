/**
 * Generated model fallback decisions: a chain of one to three models, each
 * answering its attempts from a script (an answer, a failure before any
 * output, a failure after some text), a retry budget, and the triggers the
 * host named. Each case runs through agent-core's fallback layer over its
 * transport retry (virtual clock), or through a `PiTurnRunner` turn as its
 * main request or as a hook's own request (`auxiliaryStreamFn`, a
 * compaction summary's path), and is compared with a plain model of the
 * rules: which model gets how many attempts, what the caller sees, and
 * (in a turn) which models `onLlmCallPreparedHook` was shown.
 */
import type { AssistantMessage } from "@mariozechner/pi-ai";
import {
  collectStream,
  createScriptedModel,
  createVirtualClock,
  errorAfter,
  type ScriptEntry,
  type ScriptedModel,
  type VirtualClock,
} from "@turnkit/agent-loop/testing";
import {
  PiTurnRunner,
  classifyError,
  withLlmRetry,
  type BeforeLlmCallHook,
  type LlmFallbackOptions,
  type ModelFallbackTrigger,
  type StreamFn,
} from "@turnkit/agent-core";
import type { RuntimeEvent } from "@turnkit/protocol";
import { fallbackTriggerOf, resolveModelFallback, withModelFallback } from "@turnkit/agent-core/internal";
import fc from "fast-check";
import { checkEventsPersistable } from "./invariants/events-persistable.js";

/** One attempt's answer. */
export type FallbackAttempt =
  | { kind: "answer"; text: string }
  | { kind: "failBefore"; error: string }
  | { kind: "failAfter"; text: string; error: string };

/** A generated case. */
export interface FallbackScenario {
  /** Per model (the turn's first), the answers of its attempts in order; an attempt past the list answers. */
  models: FallbackAttempt[][];
  on: ModelFallbackTrigger[];
  maxRetries: number;
  /** The layers alone, a turn's main request, or a before-LLM hook's own request in a turn. */
  path: "layer" | "main" | "auxiliary";
  /** Every other fallback model is of the turn's provider (without a key of its own). */
  sharedProvider: boolean;
  /** The hook's own request goes first to a model of another provider, with a key of its own (as a summary model may). */
  foreignFirst: boolean;
}

/** Failure texts of every class the fallback layer tells apart, as providers write them. */
const FAILURES = [
  '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  "503 Service Unavailable",
  "500 Internal Server Error",
  '500 {"status_code":2056,"status_msg":"plan exhausted"}',
  "429 You exceeded your current quota, please check your plan and billing details.",
  "429 Rate limit reached for requests",
  "401 Incorrect API key provided",
  "400 prompt is too long: 213462 tokens > 200000 maximum",
  "ECONNRESET socket hang up",
  "LLM stream timed out: no first event within 100 ms (first_event timeout).",
];

const TRIGGERS: ModelFallbackTrigger[] = [
  "overloaded",
  "unavailable",
  "quota",
  "rate_limited",
  "timeout",
  "network",
  "auth",
];

const attemptArbitrary: fc.Arbitrary<FallbackAttempt> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("answer" as const), text: fc.constantFrom("a", "bb", "ccc") }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("failBefore" as const), error: fc.constantFrom(...FAILURES) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("failAfter" as const),
      text: fc.constantFrom("partial", "half"),
      error: fc.constantFrom(...FAILURES),
    }),
  },
);

/** Cases: one to three models of up to four scripted attempts, a budget of 0 to 2 retries, any triggers. */
export const fallbackScenarioArbitrary: fc.Arbitrary<FallbackScenario> = fc.record({
  models: fc.array(fc.array(attemptArbitrary, { maxLength: 4 }), { minLength: 1, maxLength: 3 }),
  on: fc.subarray(TRIGGERS),
  maxRetries: fc.integer({ min: 0, max: 2 }),
  path: fc.constantFrom("layer" as const, "main" as const, "auxiliary" as const),
  sharedProvider: fc.boolean(),
  foreignFirst: fc.boolean(),
});

/** The turn's key, and the key the hook's request to another provider's model carries. */
const TURN_KEY = "sk-turn";
const FOREIGN_KEY = "sk-foreign";

/** The provider of model `index` of the chain (the turn's is `provider-0`). */
function providerOf(scenario: FallbackScenario, index: number): string {
  return scenario.sharedProvider && index % 2 === 1 ? "provider-0" : `provider-${index}`;
}

/** What the caller sees, and which model got how many attempts. */
interface FallbackResult {
  attempts: number[];
  text: string;
  failed: boolean;
  errorMessage?: string;
  /** In a turn: the models (`provider/id`) `onLlmCallPreparedHook` was shown, in order. */
  announced?: string[];
  /** In a turn: the key each model's attempts were sent with. */
  keys?: (string | undefined)[][];
}

/** The rules, written plainly: retries within a model, then the next model only for a named trigger before output. */
export function expectedFallback(scenario: FallbackScenario): FallbackResult {
  const attempts = scenario.models.map(() => 0);
  for (let model = 0; model < scenario.models.length; model++) {
    for (let attempt = 0; ; attempt++) {
      attempts[model] = attempt + 1;
      const answer = scenario.models[model]![attempt] ?? { kind: "answer", text: `model ${model}` };
      if (answer.kind === "answer") return { attempts, text: answer.text, failed: false };
      const classified = classifyError(answer.error);
      if (answer.kind === "failAfter") return { attempts, text: answer.text, failed: true, errorMessage: answer.error };
      if (classified.retryable && attempt < scenario.maxRetries) continue;
      const trigger = fallbackTriggerOf(classified);
      const last = model === scenario.models.length - 1;
      if (last || !trigger || !scenario.on.includes(trigger))
        return { attempts, text: "", failed: true, errorMessage: answer.error };
      break;
    }
  }
  throw new Error("unreachable: the last model always ends the request");
}

/** Runs the case on its path; the attempts each model's script saw, and what came out. */
export async function runFallbackScenario(scenario: FallbackScenario): Promise<FallbackResult> {
  const clock = createVirtualClock({ autoAdvance: true });
  const scripted = scenario.models.map((attempts, index) =>
    createScriptedModel([...attempts.map(entryOf), ...Array.from({ length: 4 }, () => `model ${index}`)], {
      model: { id: `model-${index}`, provider: providerOf(scenario, index) },
      clock,
    }),
  );
  if (scenario.path !== "layer") return runFallbackTurn(scenario, scripted, clock);
  const retried = (streamFn: StreamFn) =>
    withLlmRetry(streamFn, { maxRetries: scenario.maxRetries }, { clock, random: () => 0 });
  const options: LlmFallbackOptions = {
    models: scripted.slice(1).map((model) => ({ model: model.model })),
    on: scenario.on,
  };
  const fallback = resolveModelFallback(options);
  const primary = retried(scripted[0]!.streamFn);
  const stream = fallback
    ? withModelFallback({ fallback, primary, stacks: scripted.slice(1).map((model) => retried(model.streamFn)) })
    : primary;
  const collected = await collectStream(stream(scripted[0]!.model, { messages: [] }, {}));
  const text = collected.events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : [])).join("");
  const failed = collected.final.stopReason === "error";
  return {
    attempts: scripted.map((model) => model.requests.length),
    text,
    failed,
    ...(failed ? { errorMessage: collected.final.errorMessage } : {}),
  };
}

/**
 * The case as one turn of a `PiTurnRunner` (retry and fallback from the
 * turn's `llmRetry` and `llm.fallback`): its main request, or a before-LLM
 * hook's own request that then answers the turn itself (`respond`), so the
 * models see no main request.
 */
async function runFallbackTurn(
  scenario: FallbackScenario,
  scripted: readonly ScriptedModel[],
  clock: VirtualClock,
): Promise<FallbackResult> {
  const announced: string[] = [];
  let auxiliary: { text: string; final: AssistantMessage } | undefined;
  const beforeLlmCallHook: BeforeLlmCallHook = async (event) => {
    if (auxiliary) return undefined;
    const foreign = { ...event.model, provider: "foreign", id: "summariser" };
    const stream = scenario.foreignFirst
      ? await event.auxiliaryStreamFn(foreign, { messages: [] }, { apiKey: FOREIGN_KEY })
      : await event.auxiliaryStreamFn(event.model, { messages: [] }, {});
    const collected = await collectStream(stream);
    const text = collected.events.flatMap((part) => (part.type === "text_delta" ? [part.delta] : [])).join("");
    auxiliary = { text, final: collected.final };
    return { type: "respond", text: "answered by the hook" };
  };
  const events: RuntimeEvent[] = [];
  const outcome = await new PiTurnRunner({ clock, random: () => 0 }).runTurn({
    sessionId: "session-fallback",
    turnId: "turn-fallback",
    systemPrompt: "",
    userMessage: { text: "go" },
    eventWriter: { push: (event) => void events.push(event) },
    llm: {
      model: scripted[0]!.model,
      streamFn: scripted[0]!.streamFn,
      apiKey: TURN_KEY,
      firstEventTimeoutMs: 0,
      streamIdleTimeoutMs: 0,
      ...(scripted.length > 1 && {
        fallback: {
          models: scripted.slice(1).map((model) => ({ model: model.model, streamFn: model.streamFn })),
          on: scenario.on,
        },
      }),
    },
    llmRetry: { maxRetries: scenario.maxRetries, baseDelayMs: 1, maxDelayMs: 1 },
    disableBuiltinToolFallback: true,
    hooks: {
      onLlmCallPreparedHook: (event) => void announced.push(`${event.model.provider}/${event.model.id}`),
      ...(scenario.path === "auxiliary" && { beforeLlmCallHook }),
    },
  });
  // Every event (a model_fallback warning of either family among them) is one a host can persist (invariant 20).
  checkEventsPersistable(events);
  const attempts = scripted.map((model) => model.requests.length);
  const keys = scripted.map((model) => model.requests.map((request) => request.options?.apiKey));
  if (scenario.path === "auxiliary") {
    if (!auxiliary) throw new Error(`model fallback: the hook's request never settled; the turn ended ${outcome.kind}`);
    const failed = auxiliary.final.stopReason === "error";
    return {
      attempts,
      text: auxiliary.text,
      failed,
      ...(failed ? { errorMessage: auxiliary.final.errorMessage } : {}),
      announced,
      keys,
    };
  }
  const text = events
    .flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "text" ? [event.payload.chunk.delta] : [],
    )
    .join("");
  const failed = outcome.kind === "failed";
  return { attempts, text, failed, ...(failed ? { errorMessage: outcome.error.message } : {}), announced, keys };
}

function entryOf(attempt: FallbackAttempt): ScriptEntry {
  switch (attempt.kind) {
    case "answer":
      return attempt.text;
    case "failBefore":
      return errorAfter(0, attempt.error);
    case "failAfter":
      // start, text_start, then the text: visible output, then the failure.
      return errorAfter(3, attempt.error, { response: attempt.text });
    default: {
      const unreachable: never = attempt;
      return unreachable;
    }
  }
}

/**
 * Runs the case and throws unless it went as the rules say: each model got
 * exactly the attempts the rules give it (none after the one that answered
 * or failed for good), the caller saw exactly one attempt's text (never two
 * models' output, never a fallback after output), and the request failed
 * exactly when the rules say, with that attempt's error.
 */
export async function checkFallbackScenario(scenario: FallbackScenario): Promise<void> {
  const expected = expectedFallback(scenario);
  const actual = await runFallbackScenario(scenario);
  const problems: string[] = [];
  if (JSON.stringify(actual.attempts) !== JSON.stringify(expected.attempts))
    problems.push(
      `attempts per model ${JSON.stringify(actual.attempts)}, expected ${JSON.stringify(expected.attempts)}`,
    );
  if (actual.text !== expected.text)
    problems.push(`text ${JSON.stringify(actual.text)}, expected ${JSON.stringify(expected.text)}`);
  if (actual.failed !== expected.failed) problems.push(`failed ${actual.failed}, expected ${expected.failed}`);
  if (expected.failed && !actual.errorMessage?.includes(expected.errorMessage!.slice(0, 20)))
    problems.push(`error ${JSON.stringify(actual.errorMessage)}, expected ${JSON.stringify(expected.errorMessage)}`);
  // A turn shows each model its main request went to once (a retry to the same model is not shown again); a hook's own requests none.
  const shown =
    scenario.path === "main"
      ? expected.attempts.flatMap((count, index) =>
          count > 0 ? [`${providerOf(scenario, index)}/model-${index}`] : [],
        )
      : [];
  // Keys: the request's own for its first model and any of that model's provider; the turn's for a model of the turn's provider; else none.
  if (actual.keys) {
    const foreign = scenario.path === "auxiliary" && scenario.foreignFirst;
    const requestProvider = foreign ? "foreign" : "provider-0";
    const requestKey = foreign ? FOREIGN_KEY : TURN_KEY;
    actual.keys.forEach((sent, index) => {
      const provider = index === 0 ? requestProvider : providerOf(scenario, index);
      const key = provider === requestProvider ? requestKey : provider === "provider-0" ? TURN_KEY : undefined;
      if (sent.some((value) => value !== key))
        problems.push(`model ${index} (${provider}) was sent keys ${JSON.stringify(sent)}, expected ${key ?? "none"}`);
    });
  }
  if (actual.announced && JSON.stringify(actual.announced) !== JSON.stringify(shown))
    problems.push(
      `onLlmCallPreparedHook was shown ${JSON.stringify(actual.announced)}, expected ${JSON.stringify(shown)}`,
    );
  if (problems.length > 0) throw new Error(`model fallback: ${problems.join("; ")}`);
}
