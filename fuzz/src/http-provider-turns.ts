/**
 * The runner's generated turns answered over HTTP: no stream function, so
 * every model request goes through pi-ai's `streamSimple` and its real
 * openai-completions provider (the OpenAI SDK, `fetch`, a socket), its
 * openai-responses provider (output items), its anthropic-messages
 * provider (its own event-stream reader) or its google-generative-ai
 * provider (Google's Gen AI SDK) to the fuzz's
 * own server on 127.0.0.1, speaking that API. Each scripted attempt of
 * the scenario becomes an HTTP answer: a response is an event stream of
 * chunks (text and reasoning in generated pieces, tool-call arguments cut
 * anywhere, a finish reason, a usage chunk), a failure before output an
 * error status with its body as the API's JSON, plain text, an HTML
 * page or nothing, a failure after output an error event or a cut
 * connection. On top, attempts the scenario does not have: a reset before
 * the first byte, a request left unanswered (until the first-event watchdog
 * or an abort), a proxy's HTML 502. The bytes are framed as servers and
 * proxies frame them (`http-provider-server.ts`). The clock is real,
 * sped up, so watchdogs, backoffs and the sockets race.
 *
 * Besides every invariant of a generated turn (on a real clock), the
 * network's own: every request sent is an attempt the turn counted (no SDK
 * retries behind the retry layer), none is sent after the turn settled,
 * and none outlives it (each answer was written to its end, or the client
 * closed the connection: a request the runner stopped reading was aborted).
 */
import fc from "fast-check";
import { mostly, oneIn } from "./response-arbitraries.js";
import { PiTurnRunner, TurnkitConfigError } from "@turnkit/agent-core";
import type { GenerationOptions } from "./known-bugs.js";
import { providerFailureTurnArbitrary, turnScenarioArbitrary } from "./scenario-arbitraries.js";
import { hostileTurnArbitrary } from "./hostile-host-arbitraries.js";
import { prepareTurnScenario } from "./run-turn-scenario.js";
import { type ObserveTurnOptions, observeTurn } from "./observe-turn.js";
import { checkTurnObservation } from "./observation-checks.js";
import { checkUIMessageStream } from "./invariants/ui-message-stream.js";
import { InvariantViolation } from "./invariants/violation.js";
import { createScaledRealClock } from "./scaled-real-clock.js";
import type { FuzzProperty } from "./fuzz-property.js";
import {
  type ExtraFailure,
  type HttpProviderTurnCase,
  type HttpSpec,
  type ModelFault,
  planAnswers,
} from "./http-provider-answers.js";
import { httpProviderModel, startHttpProviderServer } from "./http-provider-server.js";

export type { HttpProviderTurnCase } from "./http-provider-answers.js";

const httpSpecArbitrary: fc.Arbitrary<HttpSpec> = fc.record({
  dialect: fc.constantFrom<HttpSpec["dialect"]>(
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
    "google-generative-ai",
  ),
  framing: fc.record({
    crlf: fc.boolean(),
    comments: fc.boolean(),
    noSpace: fc.boolean(),
    pieces: fc.oneof(
      { weight: 2, arbitrary: fc.constant(1) },
      { weight: 1, arbitrary: fc.integer({ min: 2, max: 4 }) },
    ),
  }),
  errorBody: fc.constantFrom("json", "text", "html", "empty"),
  withoutDone: fc.boolean(),
  pauseMs: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
  pieceSize: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }) },
  ),
  extras: fc.array(
    fc.record({ before: fc.nat({ max: 6 }), kind: fc.constantFrom<ExtraFailure["kind"]>("reset", "hang", "html502") }),
    { maxLength: 2 },
  ),
  cut: mostly(
    3,
    fc.record({
      response: fc.nat({ max: 3 }),
      after: fc.nat({ max: 30 }),
      kind: fc.constantFrom<"reset" | "malformed">("reset", "malformed"),
    }),
  ),
  // One case in eight: a model built by hand that pi-ai cannot send to, refused before the turn.
  modelFault: oneIn(
    8,
    fc.record({
      field: fc.constantFrom<ModelFault["field"]>(
        "id",
        "api",
        "baseUrl",
        "input",
        "cost",
        "maxTokens",
        "contextWindow",
        "reasoning",
      ),
      kind: fc.constantFrom<ModelFault["kind"]>("missing", "wrongType"),
    }),
  ),
  scale: fc.constantFrom(500, 2_000, 10_000),
  seed: fc.integer(),
});

/** Turns of the runner's plain, provider-failure and hostile-host kinds, answered over HTTP. */
export function httpProviderTurnArbitrary(options: GenerationOptions): fc.Arbitrary<HttpProviderTurnCase> {
  return fc.record({
    scenario: fc.oneof(
      { weight: 2, arbitrary: turnScenarioArbitrary(options) },
      { weight: 2, arbitrary: providerFailureTurnArbitrary(options) },
      { weight: 1, arbitrary: hostileTurnArbitrary(options) },
    ),
    http: httpSpecArbitrary,
  });
}

/** Real time with no timer scheduled (a request in flight without a watchdog) before the driver calls the turn hung. */
const QUIET_MS = 1_500;

/** Values of the wrong type for each field a {@link ModelFault} names. */
const WRONG_TYPES: Record<ModelFault["field"], unknown> = {
  id: 42,
  api: null,
  baseUrl: 8080,
  input: "text",
  cost: { input: "1", output: 1, cacheRead: 0, cacheWrite: 0 },
  maxTokens: "4096",
  contextWindow: -1,
  reasoning: "yes",
};

/** Fields pi-ai's providers can do without: a model that leaves one out is sent. */
const OPTIONAL_FIELDS: readonly ModelFault["field"][] = ["contextWindow", "reasoning"];

/**
 * A hand-built model with `fault`: `runTurn` must refuse it before any event
 * and any request, with a `TurnkitConfigError` naming the field; a model
 * that only leaves out a field pi-ai does without is sent as any other.
 */
async function checkModelFault(
  fault: ModelFault,
  model: Record<string, unknown>,
  input: ObserveTurnOptions["input"],
  requestsSent: () => number,
): Promise<boolean> {
  if (fault.kind === "missing" && OPTIONAL_FIELDS.includes(fault.field)) return false;
  const { [fault.field]: _left, ...rest } = model;
  const faulty = fault.kind === "missing" ? rest : { ...rest, [fault.field]: WRONG_TYPES[fault.field] };
  const events: unknown[] = [];
  const settled = await new PiTurnRunner()
    .runTurn({
      ...input,
      llm: { ...input.llm, model: faulty as never },
      eventWriter: { push: (event) => void events.push(event) },
    })
    .then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    );
  const refused =
    "error" in settled &&
    TurnkitConfigError.isInstance(settled.error) &&
    settled.error.message.startsWith(`RunTurnInput.llm.model.${fault.field}`);
  if (!refused || events.length > 0 || requestsSent() > 0)
    throw new InvariantViolation(
      "a hand-built model pi-ai cannot send to is refused before the turn",
      `model with ${fault.field} ${fault.kind}: ${"error" in settled ? String(settled.error) : `resolved ${settled.outcome.kind}`}; ${events.length} events, ${requestsSent()} requests`,
    );
  return true;
}

/** How long a request may stay open after its turn settled: its client must have closed it by then. */
const CLOSE_GRACE_MS = 2_000;

/** Runs the case's turn against the server and checks every invariant, the network's included. */
export async function checkHttpProviderTurn(testCase: HttpProviderTurnCase): Promise<void> {
  const { scenario, http } = testCase;
  const server = await startHttpProviderServer(http.dialect, planAnswers(testCase), http.framing, http.seed);
  const fetch = globalThis.fetch;
  try {
    const clock = createScaledRealClock({ scale: http.scale, jitterSeed: http.seed });
    const prepared = prepareTurnScenario(scenario, { clock, sessionId: "session-http", turnId: "turn-http" });
    const { input, onSettled } = prepared.options;
    // No stream function: the runner sends each request through pi-ai's streamSimple to the server.
    const { streamFn: _scripted, ...llm } = input.llm;
    let settledAt = Number.POSITIVE_INFINITY;
    // When each request was sent, as the client sees it (the server sees a request only once it arrived).
    const sentAt: number[] = [];
    globalThis.fetch = (resource, init) => {
      if (String(resource instanceof Request ? resource.url : resource).startsWith(server.baseUrl))
        sentAt.push(performance.now());
      return fetch(resource, init);
    };
    const model = httpProviderModel(http.dialect, server.baseUrl);
    const sentInput = { ...input, llm: { ...llm, model, apiKey: "sk-fuzz" } };
    if (http.modelFault && (await checkModelFault(http.modelFault, { ...model }, sentInput, () => sentAt.length)))
      return;
    const observation = await observeTurn({
      ...prepared.options,
      input: sentInput,
      quietMs: QUIET_MS,
      onSettled: () => {
        settledAt = performance.now();
        onSettled?.();
      },
    });
    checkTurnObservation(
      scenario,
      {
        ...observation,
        respondTexts: prepared.respondTexts,
        llmDecisions: prepared.llmDecisions,
        hostile: prepared.hostile,
        ...(prepared.questions && { questions: prepared.questions }),
      },
      "real",
    );
    await checkUIMessageStream(observation.events);
    globalThis.fetch = fetch;
    if (sentAt.length === 0 && server.requests.length > 0)
      throw new Error("the harness saw no request sent: pi-ai's provider no longer sends through globalThis.fetch");
    // Every request sent is an attempt the turn counted: the provider's SDK never retries on its own behind the retry layer.
    const outcome = observation.settlements.find((settled) => settled.kind === "resolved")?.outcome;
    const attempts = outcome?.usage?.attempts;
    const counted = attempts ? attempts.main + attempts.auxiliary : Number.POSITIVE_INFINITY;
    if (sentAt.length > counted)
      throw new InvariantViolation(
        "network: one request per attempt",
        `${sentAt.length} requests were sent, the turn counted ${counted} attempts`,
      );
    const late = sentAt.findIndex((at) => at > settledAt);
    if (late >= 0)
      throw new InvariantViolation(
        "network: no request after the turn",
        `request #${late + 1} was sent ${(sentAt[late]! - settledAt).toFixed(1)} ms after the turn settled`,
      );
    const deadline = performance.now() + CLOSE_GRACE_MS;
    while (server.requests.some((request) => request.state === "open") && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const open = server.requests.findIndex((request) => request.state === "open");
    if (open >= 0)
      throw new InvariantViolation(
        "network: no request outlives its turn",
        `request #${open + 1} (${server.requests[open]!.answer}) was still open ${CLOSE_GRACE_MS} ms after the turn settled`,
      );
  } finally {
    globalThis.fetch = fetch;
    await server.close();
  }
}

/** The property: generated turns against the server, every invariant checked after each. */
export function httpProviderProperty(options: GenerationOptions): FuzzProperty<HttpProviderTurnCase> {
  return {
    name: "runner-http-provider",
    description:
      "PiTurnRunner's generated turns (plain, provider failures, hostile hosts) sent through pi-ai's openai-completions, openai-responses, anthropic-messages or google-generative-ai provider to a server of that API on 127.0.0.1: event streams framed as servers and proxies frame them, error statuses with JSON, text, HTML or empty bodies, errors mid-stream, resets, unanswered requests; no request after the turn or outliving it",
    arbitrary: httpProviderTurnArbitrary(options),
    run: checkHttpProviderTurn,
    ciRuns: 15,
    fuzzWeight: 0.5,
  };
}
