/**
 * The runner's generated turns answered by pi-ai's own test provider
 * (`registerFauxProvider`) through the default request path (no stream
 * function: pi-ai's `streamSimple`), as a host testing its runner with
 * pi-ai's tools would run them. The faux provider streams differently from
 * our scripted model: random token sizes, partials that share their content
 * blocks (a later delta changes an earlier event's partial), tool-call
 * arguments only at `toolcall_end`, failures as `error` events carrying the
 * text streamed so far, a response factory that throws or answers late, and
 * "No more faux responses queued" once the script runs out (hooks that
 * retry or answer for the model change how many requests a turn makes).
 * The scenario's own expectations assume the scripted model, so only the
 * invariants of every turn are checked.
 */
import {
  type FauxResponseStep,
  fauxAssistantMessage,
  fauxText,
  fauxThinking,
  fauxToolCall,
  registerFauxProvider,
} from "@mariozechner/pi-ai";
import { createVirtualClock } from "@turnkit/agent-loop/testing";
import fc from "fast-check";
import type { GenerationOptions } from "./known-bugs.js";
import { providerFailureTurnArbitrary, turnScenarioArbitrary } from "./scenario-arbitraries.js";
import { hostileTurnArbitrary } from "./hostile-host-arbitraries.js";
import { prepareTurnScenario } from "./run-turn-scenario.js";
import { observeTurn } from "./observe-turn.js";
import { checkTurnInvariants, hostCheckOptions } from "./observation-checks.js";
import { checkUIMessageStream } from "./invariants/ui-message-stream.js";
import { callArguments, markedText } from "./scripted-entries.js";
import type { RequestSpec, TurnScenario } from "./scenario.js";

/** How the faux provider answers a case's requests. */
export interface FauxProviderSpec {
  /** Token sizes of the streamed chunks, in tokens of four characters. */
  tokenSize: { min: number; max: number };
  /** The response (by index) whose factory throws instead. */
  factoryThrowsAt: number | undefined;
  /** Every response comes from a factory that answers after a macrotask. */
  lateFactories: boolean;
  /** Responses left out at the end of the script. */
  missing: number;
}

/** A generated turn and how the faux provider answers it. */
export interface FauxProviderTurnCase {
  scenario: TurnScenario;
  faux: FauxProviderSpec;
}

const fauxSpecArbitrary: fc.Arbitrary<FauxProviderSpec> = fc
  .record({
    min: fc.integer({ min: 1, max: 4 }),
    span: fc.integer({ min: 0, max: 6 }),
    factoryThrowsAt: fc.option(fc.nat({ max: 5 }), { nil: undefined, freq: 3 }),
    lateFactories: fc.boolean(),
    missing: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) },
    ),
  })
  .map(({ min, span, ...rest }) => ({ tokenSize: { min, max: min + span }, ...rest }));

/** Turns of the runner's plain, provider-failure and hostile-host kinds, answered by the faux provider. */
export function fauxProviderTurnArbitrary(options: GenerationOptions): fc.Arbitrary<FauxProviderTurnCase> {
  return fc.record({
    scenario: fc.oneof(
      { weight: 2, arbitrary: turnScenarioArbitrary(options) },
      { weight: 1, arbitrary: providerFailureTurnArbitrary(options) },
      { weight: 1, arbitrary: hostileTurnArbitrary(options) },
    ),
    faux: fauxSpecArbitrary,
  });
}

/** The faux script of a scenario's requests: each failed attempt as an `error` response, then the response. */
function fauxSteps(requests: readonly RequestSpec[], faux: FauxProviderSpec): FauxResponseStep[] {
  const messages = requests.flatMap((request) => {
    const failures = request.failures.map((failure) => {
      const hint = failure.retryAfterSeconds === undefined ? "" : ` Please try again in ${failure.retryAfterSeconds}s.`;
      const streamed = failure.visible ? [fauxText(markedText(failure.token, "partial answer that fails"))] : [];
      return fauxAssistantMessage(streamed, { stopReason: "error", errorMessage: `${failure.status} failed.${hint}` });
    });
    const { response } = request;
    const blocks = [
      ...(response.thinking === undefined ? [] : [fauxThinking(response.thinking)]),
      ...(response.text === undefined ? [] : [fauxText(markedText(response.token, response.text))]),
      ...response.calls.map((call) => fauxToolCall(call.tool, callArguments(call.args), { id: call.id })),
    ];
    const stopReason =
      response.stopReason === "natural" ? (response.calls.length > 0 ? "toolUse" : "stop") : response.stopReason;
    const answer = fauxAssistantMessage(blocks, {
      stopReason,
      ...(stopReason === "aborted" && { errorMessage: "the provider ended the response" }),
    });
    return [...failures, answer];
  });
  return messages.slice(0, Math.max(0, messages.length - faux.missing)).map((message, index): FauxResponseStep => {
    if (index === faux.factoryThrowsAt)
      return () => {
        throw new Error("the faux response factory failed");
      };
    if (!faux.lateFactories) return message;
    return async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return message;
    };
  });
}

let registrations = 0;

/** Runs the case's turn with the faux provider as its model and checks the invariants of every turn. */
export async function checkFauxProviderTurn({ scenario, faux }: FauxProviderTurnCase): Promise<void> {
  const provider = registerFauxProvider({
    api: `turnkit-fuzz-faux-${++registrations}`,
    provider: "turnkit-fuzz-faux",
    tokenSize: faux.tokenSize,
  });
  try {
    provider.setResponses(fauxSteps(scenario.requests, faux));
    const prepared = prepareTurnScenario(scenario, {
      clock: createVirtualClock(),
      sessionId: "session-faux",
      turnId: "turn-faux",
    });
    const { input } = prepared.options;
    // No stream function: the runner sends each request through pi-ai's streamSimple to the registered provider.
    const { streamFn: _scripted, ...llm } = input.llm;
    const observation = await observeTurn({
      ...prepared.options,
      input: { ...input, llm: { ...llm, model: provider.getModel() } },
    });
    checkTurnInvariants(observation, hostCheckOptions(scenario));
    await checkUIMessageStream(observation.events);
  } finally {
    provider.unregister();
  }
}
