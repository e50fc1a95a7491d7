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
  type AssistantMessage,
  type Context,
  type FauxProviderRegistration,
  type FauxResponseStep,
  type StreamOptions,
  fauxAssistantMessage,
  fauxText,
  fauxThinking,
  fauxToolCall,
  registerFauxProvider,
} from "@mariozechner/pi-ai";
import { createVirtualClock } from "@turnkit/agent-loop/testing";
import fc from "fast-check";
import { mostly } from "./response-arbitraries.js";
import type { GenerationOptions } from "./known-bugs.js";
import { providerFailureTurnArbitrary, turnScenarioArbitrary } from "./scenario-arbitraries.js";
import { hostileTurnArbitrary } from "./hostile-host-arbitraries.js";
import { prepareTurnScenario } from "./run-turn-scenario.js";
import { observeTurn } from "./observe-turn.js";
import { checkTurnInvariants, hostCheckOptions, scriptedTexts } from "./observation-checks.js";
import { checkUIMessageStream } from "./invariants/ui-message-stream.js";
import { callArguments, failureStreamedText, failureText, markedText } from "./scripted-entries.js";
import type { FauxProviderSpec, ProviderFailureSpec, ResponseSpec, TurnScenario } from "./scenario.js";

/** A generated turn and how the faux provider answers it. */
export interface FauxProviderTurnCase {
  scenario: TurnScenario;
  faux: FauxProviderSpec;
}

/** How the faux provider answers; `sameChunks`: equal token-size bounds, so two runs stream the same chunks. */
export function fauxSpecArbitrary(sameChunks = false): fc.Arbitrary<FauxProviderSpec> {
  return fc
    .record({
      min: fc.integer({ min: 1, max: 4 }),
      span: sameChunks ? fc.constant(0) : fc.integer({ min: 0, max: 6 }),
      factoryThrowsAt: mostly(3, fc.nat({ max: 5 })),
      lateFactories: fc.boolean(),
      missing: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) },
      ),
    })
    .map(({ min, span, ...rest }) => ({ tokenSize: { min, max: min + span }, ...rest }));
}

/** Turns of the runner's plain, provider-failure and hostile-host kinds, answered by the faux provider. */
export function fauxProviderTurnArbitrary(options: GenerationOptions): fc.Arbitrary<FauxProviderTurnCase> {
  return fc.record({
    scenario: fc.oneof(
      { weight: 2, arbitrary: turnScenarioArbitrary(options) },
      { weight: 1, arbitrary: providerFailureTurnArbitrary(options) },
      { weight: 1, arbitrary: hostileTurnArbitrary(options) },
    ),
    faux: fauxSpecArbitrary(),
  });
}

/** A response spec as the faux provider's answer: its thinking, marked text and calls, and its stop reason. */
export function fauxResponse(response: ResponseSpec): AssistantMessage {
  const blocks = [
    ...(response.thinking === undefined ? [] : [fauxThinking(response.thinking)]),
    ...(response.text === undefined ? [] : [fauxText(markedText(response.token, response.text))]),
    ...response.calls.map((call) => fauxToolCall(call.tool, callArguments(call.args), { id: call.id })),
  ];
  const stopReason =
    response.stopReason === "natural" ? (response.calls.length > 0 ? "toolUse" : "stop") : response.stopReason;
  return fauxAssistantMessage(blocks, {
    stopReason,
    ...(stopReason === "aborted" && { errorMessage: "the provider ended the response" }),
  });
}

/** A failed attempt as the faux provider's `error` answer, with the text a visible failure streamed first. */
function fauxFailure(failure: ProviderFailureSpec): AssistantMessage {
  const streamed = failure.visible ? [fauxText(failureStreamedText(failure))] : [];
  return fauxAssistantMessage(streamed, { stopReason: "error", errorMessage: failureText(failure) });
}

/**
 * The faux script of `answers` as `faux` says (the last `missing` left out,
 * one factory that throws, or every answer a macrotask late); `record` sees
 * each request's context and options as the provider got them.
 */
export function fauxScript(
  answers: readonly AssistantMessage[],
  faux: FauxProviderSpec,
  record?: (context: Context, options: StreamOptions | undefined) => void,
): FauxResponseStep[] {
  return answers.slice(0, Math.max(0, answers.length - faux.missing)).map(
    (message, index): FauxResponseStep =>
      async (context, options) => {
        record?.(context, options);
        if (index === faux.factoryThrowsAt) throw new Error("the faux response factory failed");
        if (faux.lateFactories) await new Promise((resolve) => setImmediate(resolve));
        return message;
      },
  );
}

/**
 * Registers the faux provider for one run; `unregister()` it after the run.
 * Runs take turns (one case at a time), so every run registers the same API
 * name: two runs of a case send the same model.
 */
export function registerFauxFor(faux: FauxProviderSpec): FauxProviderRegistration {
  return registerFauxProvider({
    api: "turnkit-fuzz-faux",
    provider: "turnkit-fuzz-faux",
    tokenSize: faux.tokenSize,
  });
}

/** Runs the case's turn with the faux provider as its model and checks the invariants of every turn. */
export async function checkFauxProviderTurn({ scenario, faux }: FauxProviderTurnCase): Promise<void> {
  const provider = registerFauxFor(faux);
  try {
    const answers = scenario.requests.flatMap((request) => [
      ...request.failures.map(fauxFailure),
      fauxResponse(request.response),
    ]);
    provider.setResponses(fauxScript(answers, faux));
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
    checkTurnInvariants(observation, {
      ...hostCheckOptions(scenario),
      scriptedTexts: scriptedTexts(scenario, prepared.respondTexts),
    });
    await checkUIMessageStream(observation.events);
  } finally {
    provider.unregister();
  }
}
