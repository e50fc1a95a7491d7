// Why this file is long: it is the one list of every property with its generator, CI budget and share of a run; split, the budgets and shares could not be read side by side.
/**
 * The fuzz properties, shared by the CI tests
 * (`fuzz/test/properties`) and `pnpm fuzz` (`fuzz/src/run.ts`): each
 * generates scenarios, runs them through `Agent` or `PiTurnRunner`, and
 * checks every invariant after each run.
 */
import fc from "fast-check";
import { type ArgumentScenario, argumentScenarioArbitrary, runArgumentScenario } from "./argument-scenario.js";
import type { GenerationOptions } from "./known-bugs.js";
import { snapshotPrototypes } from "./invariants/prototypes.js";
import { hostileTurnArbitrary, pendingHookSlowWriterArbitrary } from "./hostile-host-arbitraries.js";
import { checkLoggerChangesNothing } from "./invariants/logger-changes-nothing.js";
import { checkUIMessageStream } from "./invariants/ui-message-stream.js";
import { checkSameAsPi, differentialAgentArbitrary } from "./agent-differential.js";
import {
  checkAgentObservation,
  checkArgumentObservation,
  checkMalformedRefused,
  checkTurnObservation,
} from "./observation-checks.js";
import { runAgentScenario } from "./run-agent-scenario.js";
import { runTurnScenario } from "./run-turn-scenario.js";
import { checkSharedRunner, sharedRunnerArbitrary } from "./shared-runner.js";
import { type FallbackScenario, checkFallbackScenario, fallbackScenarioArbitrary } from "./model-fallback-scenario.js";
import { type RetryLimitsCase, checkRetryLimits, retryLimitsArbitrary } from "./retry-limits.js";
import { type OddHistoryCase, checkOddHistory, oddHistoryCaseArbitrary } from "./odd-histories.js";
import { type OptionLayersCase, checkOptionLayers, optionLayersArbitrary } from "./option-layers-scenario.js";
import { type DefinitionFault, checkDefinitionFault, definitionFaultArbitrary } from "./definition-refusals.js";
import { type RegistryCase, checkRegistryCase, registryCaseArbitrary } from "./prompt-read-registry.js";
import { type ApiCall, apiCallArbitrary, checkApiCall } from "./public-api-bad-input.js";
import { type NestedOptionsCase, checkNestedOptions, nestedOptionsArbitrary } from "./nested-options.js";
import { type ExtensionFaultScenario, checkExtensionFaults, extensionFaultArbitrary } from "./extension-faults.js";
import { type InputFault, checkInputFaults, inputFaultsArbitrary } from "./turn-input-faults.js";
import { type ReentrantCase, checkReentrantCase, reentrantCaseArbitrary } from "./reentrant-turns.js";
import { type AbortAnywhereCase, abortAnywhereArbitrary, checkAbortAnywhere } from "./abort-anywhere.js";
import { type SharedSignalCase, checkSharedSignalCase, sharedSignalCaseArbitrary } from "./shared-signal-turns.js";
import {
  type CompactionScenario,
  checkCompactionScenario,
  compactionScenarioArbitrary,
} from "./compaction-scenario.js";
import {
  agentScenarioArbitrary,
  askHostTurnArbitrary,
  providerFailureTurnArbitrary,
  turnScenarioArbitrary,
} from "./scenario-arbitraries.js";
import { subAgentTurnArbitrary } from "./sub-agent-arbitraries.js";
import { mcpServerProperty, mcpStdioServerProperty } from "./mcp-server-property.js";
import {
  type FauxProviderTurnCase,
  checkFauxProviderTurn,
  fauxProviderTurnArbitrary,
  fauxSpecArbitrary,
} from "./faux-provider-turns.js";
import { type RealClockTurnCase, checkRealClockTurn, realClockTurnArbitrary } from "./real-clock-turns.js";
import { httpProviderProperty } from "./http-provider-turns.js";
import type { FuzzProperty } from "./fuzz-property.js";
import type { AgentScenario, TurnScenario } from "./scenario.js";

export type { FuzzProperty } from "./fuzz-property.js";

/** Every invariant of a generated turn, its UI message stream included. */
async function checkTurn(scenario: TurnScenario): Promise<void> {
  const observation = await runTurnScenario(scenario);
  checkTurnObservation(scenario, observation);
  await checkUIMessageStream(observation.events);
}

/**
 * A hostile turn: every invariant, and, when its logger throws or rejects,
 * the same run with a quiet logger must end the same way (a log sink never
 * changes a turn). Compared only where the run is deterministic: no real
 * time involved (no hung member, no abort grace), no pacing.
 */
async function checkHostileTurn(scenario: TurnScenario): Promise<void> {
  const observation = await runTurnScenario(scenario);
  checkTurnObservation(scenario, observation);
  await checkUIMessageStream(observation.events);
  const hostile = scenario.hostile;
  if (
    !hostile ||
    (hostile.logger !== "throwing" && hostile.logger !== "rejecting") ||
    observation.hostile?.abortedAt !== undefined ||
    // A rejecting logger adds microtask ticks, which move a paced run's timers against its other work.
    scenario.pacing !== undefined
  )
    return;
  const quiet = await runTurnScenario({ ...scenario, hostile: { ...hostile, logger: "quiet" } });
  checkLoggerChangesNothing(observation, quiet);
}

/** The properties, with generators set up by `options` (CI steers around known bugs). */
export function createFuzzProperties(options: GenerationOptions): readonly FuzzProperty<any>[] {
  const agent: FuzzProperty<AgentScenario> = {
    name: "agent",
    description:
      "Agent: responses (now and then from pi-ai's faux provider through streamSimple, or streamed into one live message), tools, loop hooks, host actions, failing listeners",
    arbitrary: fc
      .tuple(
        agentScenarioArbitrary(options),
        fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fauxSpecArbitrary() }),
        fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      )
      .map(([scenario, faux, livePartial]) =>
        faux ? { ...scenario, faux } : livePartial ? { ...scenario, livePartial } : scenario,
      ),
    run: async (scenario) => {
      const observation = await runAgentScenario(scenario);
      checkAgentObservation(observation);
      checkMalformedRefused(observation.malformedCalls);
    },
    ciRuns: 250,
    fuzzWeight: 4,
  };
  const agentDifferential: FuzzProperty<AgentScenario> = {
    name: "agent-differential",
    description:
      "Agent against pi-agent-core's Agent on the ground both share: the same events, transcript and requests",
    arbitrary: differentialAgentArbitrary(options),
    run: checkSameAsPi,
    ciRuns: 60,
    fuzzWeight: 1,
  };
  const runner: FuzzProperty<TurnScenario> = {
    name: "runner",
    description:
      "PiTurnRunner: responses, tools, the eight hooks, steering, host actions, a slow or failing writer, retry",
    arbitrary: turnScenarioArbitrary(options),
    run: checkTurn,
    ciRuns: 200,
    fuzzWeight: 4,
  };
  const providerFailures: FuzzProperty<TurnScenario> = {
    name: "runner-provider-failures",
    description:
      "PiTurnRunner: retryable and final provider failures before or after visible output, backoff on the virtual clock",
    arbitrary: providerFailureTurnArbitrary(options),
    run: checkTurn,
    ciRuns: 150,
    fuzzWeight: 2,
  };
  const toolArguments: FuzzProperty<ArgumentScenario> = {
    name: "tool-arguments",
    description: "Agent and PiTurnRunner: malformed tool-call arguments, prototype-polluting keys",
    arbitrary: argumentScenarioArbitrary,
    run: async (scenario) => {
      const before = snapshotPrototypes();
      checkArgumentObservation(scenario, await runArgumentScenario(scenario), before);
    },
    ciRuns: 150,
    fuzzWeight: 1,
  };
  const hostileHost: FuzzProperty<TurnScenario> = {
    name: "runner-hostile-host",
    description:
      "PiTurnRunner with a hostile host: throwing loggers, host callbacks failing with provider-like texts, slow and hung hook members (also pending at abort), several steering messages per poll, enqueue at step end",
    arbitrary: hostileTurnArbitrary(options),
    run: checkHostileTurn,
    ciRuns: 120,
    fuzzWeight: 3,
  };
  const sharedRunner: FuzzProperty<TurnScenario[]> = {
    name: "runner-shared",
    description:
      "PiTurnRunner: two to four generated turns at once on one runner, each ending exactly as it does alone",
    arbitrary: sharedRunnerArbitrary(options),
    run: checkSharedRunner,
    ciRuns: 60,
    fuzzWeight: 2,
  };
  const seqUnderAbort: FuzzProperty<TurnScenario> = {
    name: "runner-seq-under-abort",
    description:
      "PiTurnRunner aborted while a hook of any kind is pending (past the abort grace or late), with an event writer answering late, rejecting late or never",
    arbitrary: pendingHookSlowWriterArbitrary(options),
    run: checkHostileTurn,
    // Most cases wait out a real abort grace (250 ms): a small CI budget, and half a share of `pnpm fuzz`.
    ciRuns: 16,
    fuzzWeight: 0.5,
  };
  const modelFallback: FuzzProperty<FallbackScenario> = {
    name: "model-fallback",
    description:
      "agent-core's model fallback over its transport retry, alone, as a turn's main request or as a hook's own request: chains of models failing before or after output with every error class, any triggers, compared with the rules",
    arbitrary: fallbackScenarioArbitrary,
    run: checkFallbackScenario,
    ciRuns: 200,
    fuzzWeight: 1,
  };
  const retryLimits: FuzzProperty<RetryLimitsCase> = {
    name: "retry-limits",
    description:
      "agent-core's transport retry at its limits, alone or as a turn's main request: failures of every class before or after visible output, silent attempts ended by a watchdog, Retry-After at the cap or the budget's end and one millisecond either side, default or generated policies, aborts in attempts and waits; compared with the rules",
    arbitrary: retryLimitsArbitrary,
    run: checkRetryLimits,
    ciRuns: 80,
    fuzzWeight: 1,
  };
  const oddHistory: FuzzProperty<OddHistoryCase> = {
    name: "runner-odd-history",
    description:
      "PiTurnRunner on histories as stores keep them (tool results missing, repeated, after a user message, for an earlier or no call; error and aborted responses; hidden, host and batched messages) and images of every size in them, the turn's message and its tools' results: each request holds only results providers take, each image in its place or named by a placeholder, the newest 20 that are not tiny; history unchanged",
    arbitrary: oddHistoryCaseArbitrary,
    run: checkOddHistory,
    ciRuns: 30,
    fuzzWeight: 1,
  };
  const promptReadRegistry: FuzzProperty<RegistryCase> = {
    name: "prompt-read-registry",
    description:
      "agent-core's prompt-read registry under generated sequences of has, reserve, remember, rebind, take, discard and close at capacities of one to four: every return and every error code as its contract says, its size never past its capacity",
    arbitrary: registryCaseArbitrary,
    run: checkRegistryCase,
    ciRuns: 200,
    fuzzWeight: 0.1,
  };
  const optionLayers: FuzzProperty<OptionLayersCase> = {
    name: "option-layers",
    description:
      "composeStreamFn's option layers: host caps (valid or refused), the turn's and the request's maxTokens, the model's limit, cacheRetention, timeoutMs, and header names repeated in other letter cases; what the stream function is sent follows the rules",
    arbitrary: optionLayersArbitrary,
    run: checkOptionLayers,
    ciRuns: 60,
    fuzzWeight: 0.3,
  };
  const compaction: FuzzProperty<CompactionScenario> = {
    name: "runner-compaction",
    description:
      "PiTurnRunner with the compaction extension: English or Chinese histories around the window, summaries answering, failing (429, 529, empty, timeout, overflow), main requests overflowing or overloaded, one or two chained turns; every summary request fits the summary model's window",
    arbitrary: compactionScenarioArbitrary,
    run: checkCompactionScenario,
    ciRuns: 60,
    fuzzWeight: 1,
  };
  const subAgents: FuzzProperty<TurnScenario> = {
    name: "runner-sub-agents",
    description:
      "PiTurnRunner with sub-agents: children that answer, fail, hang, reach their budget or nest, spend against the parent's budget, or are run by a host layer with a bad budget, called in parallel or in sequence, aborted with the parent",
    arbitrary: subAgentTurnArbitrary(options),
    run: checkTurn,
    // Some cases wait out a real abort grace (a child tool that ignores its signal): a CI budget of 40.
    ciRuns: 40,
    fuzzWeight: 2,
  };
  const definitionRefusals: FuzzProperty<DefinitionFault> = {
    name: "definition-refusals",
    description:
      "sub-agent definitions and llm.fallback lists with one bad or misspelt field, and tool lists (a turn's, a sub-agent's) holding two tools of one name: refused where written, naming the field or the name, before any event",
    arbitrary: definitionFaultArbitrary,
    run: checkDefinitionFault,
    ciRuns: 100,
    fuzzWeight: 0.2,
  };
  const publicApi: FuzzProperty<ApiCall> = {
    name: "public-api",
    description:
      "every exported function and class, and the methods a host calls, given odd arguments (null, symbols, bigints, revoked proxies, throwing getters, holes) beside plausible ones: refused with an Error saying what was wrong, never the engine's text, a hang or an unhandled rejection",
    arbitrary: apiCallArbitrary,
    run: checkApiCall,
    ciRuns: 1500,
    fuzzWeight: 0.3,
  };
  const nestedOptions: FuzzProperty<NestedOptionsCase> = {
    name: "nested-options",
    description:
      "the options hosts build an Agent, a runner, a runtime, an MCP extension, a retry or call stack and a chat transport from, one field at any depth set to an odd value, then used once: refused or run in words, never the engine's text, a hang or an unhandled rejection",
    arbitrary: nestedOptionsArbitrary,
    run: checkNestedOptions,
    ciRuns: 600,
    fuzzWeight: 0.3,
  };
  const inputFaults: FuzzProperty<InputFault[]> = {
    name: "run-turn-input",
    description:
      "runTurn inputs malformed as JavaScript hosts make them (getters that throw or change, proxies, frozen objects, holes, __proto__ keys, odd strings and numbers): refused naming the field before any event, or a turn that ends well",
    arbitrary: inputFaultsArbitrary,
    run: checkInputFaults,
    ciRuns: 100,
    fuzzWeight: 0.3,
  };
  const abortAnywhere: FuzzProperty<AbortAnywhereCase> = {
    name: "runner-abort-anywhere",
    description:
      "PiTurnRunner aborted from inside its writer at any event of a generated turn, half the time at the terminal status or the event before it, with late, failing or hung writers",
    arbitrary: abortAnywhereArbitrary(options),
    run: checkAbortAnywhere,
    ciRuns: 30,
    fuzzWeight: 1,
  };
  const reentrant: FuzzProperty<ReentrantCase> = {
    name: "runner-reentrant",
    description:
      "PiTurnRunner re-entered from inside a turn: its writer, a hook, a tool or the logger starts another turn on the same runner (same or other ids, awaited or not) or aborts: every turn settles once with its own unbroken seq and one terminal status last",
    arbitrary: reentrantCaseArbitrary,
    run: checkReentrantCase,
    ciRuns: 30,
    fuzzWeight: 0.3,
  };
  const sharedSignal: FuzzProperty<SharedSignalCase> = {
    name: "runner-shared-signal",
    description:
      "11 to 40 PiTurnRunner turns and agentLoop runs at once on one caller signal (text, parallel or sequential tools answering or waiting for the abort, a model that never answers), aborted at a generated event, once all wait, before start or never: no process warning, every run settles, the waiting ones abort, no listener left",
    arbitrary: sharedSignalCaseArbitrary,
    run: checkSharedSignalCase,
    ciRuns: 25,
    fuzzWeight: 0.3,
  };
  const askHost: FuzzProperty<TurnScenario> = {
    name: "runner-ask-host",
    description:
      "PiTurnRunner with tools that ask the host (ctx.askHost): answers at once, late, wrong, thrown or never, timeouts, no answer function, aborts while waiting",
    arbitrary: askHostTurnArbitrary(options),
    run: checkTurn,
    ciRuns: 120,
    fuzzWeight: 1,
  };
  const extensionFaults: FuzzProperty<ExtensionFaultScenario> = {
    name: "extension-faults",
    description:
      "agent-runtime assemblies whose extensions' tool factories, prompt parts, reminders and warning providers throw, reject or hand over values that cannot be read (revoked proxies, throwing getters, holes, bigints, cycles), or whose ctx cannot be read: a rejection typed and named, without engine text",
    arbitrary: extensionFaultArbitrary,
    run: checkExtensionFaults,
    ciRuns: 150,
    fuzzWeight: 0.3,
  };
  const realClock: FuzzProperty<RealClockTurnCase> = {
    name: "runner-real-clock",
    description:
      "PiTurnRunner's generated turns (plain, provider failures, sub-agents, host questions, hostile hosts) on Node's timers, sped up and jittered, instead of the virtual clock: timeouts, retries, tool delays and the host's answers race in real time",
    arbitrary: realClockTurnArbitrary(options),
    run: checkRealClockTurn,
    ciRuns: 25,
    fuzzWeight: 1,
  };
  const fauxProvider: FuzzProperty<FauxProviderTurnCase> = {
    name: "runner-faux-provider",
    description:
      "PiTurnRunner's generated turns (plain, provider failures, hostile hosts) answered by pi-ai's registerFauxProvider through streamSimple: its token sizes, shared partials, failures, throwing and late response factories, a script that runs out",
    arbitrary: fauxProviderTurnArbitrary(options),
    run: checkFauxProviderTurn,
    ciRuns: 60,
    fuzzWeight: 1,
  };
  return [
    agent,
    agentDifferential,
    runner,
    providerFailures,
    toolArguments,
    hostileHost,
    sharedRunner,
    seqUnderAbort,
    modelFallback,
    retryLimits,
    oddHistory,
    optionLayers,
    promptReadRegistry,
    compaction,
    subAgents,
    askHost,
    definitionRefusals,
    publicApi,
    nestedOptions,
    inputFaults,
    reentrant,
    sharedSignal,
    abortAnywhere,
    extensionFaults,
    realClock,
    fauxProvider,
    httpProviderProperty(options),
    mcpServerProperty,
    mcpStdioServerProperty,
  ];
}

/** The fast-check property of a {@link FuzzProperty}. */
export function asyncPropertyOf<TScenario>(
  property: FuzzProperty<TScenario>,
  onCase?: () => void,
): fc.IAsyncPropertyWithHooks<[TScenario]> {
  return fc.asyncProperty(property.arbitrary, (scenario) => {
    onCase?.();
    return property.run(scenario);
  });
}

/** The seed CI uses for every property (fixed so `vitest run` is deterministic). */
export const CI_SEED = 20_260_801;
