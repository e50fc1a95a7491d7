// Why this file is long: it builds one generated turn's whole host (steering intake, writer, id allocators, hooks, the model's stream wrappers) in one place, read top to bottom.
/**
 * Runs one generated {@link TurnScenario} through a real `PiTurnRunner`
 * against the scripted model on a virtual clock, and records what the host
 * saw: events, history offered and accepted, outcome, leaks.
 */
import { type VirtualClock, createScriptedModel, createVirtualClock, revokedProxy } from "@turnkit/agent-loop/testing";
import { type TurnInputMessage, createHiddenMessage } from "@turnkit/agent-core";
import type { RuntimeEvent, RuntimeWarningPayload } from "@turnkit/protocol";
import { type ObserveTurnOptions, type TurnRunObservation, observeTurn } from "./observe-turn.js";
import { decisionSequence } from "./decision-sequence.js";
import type { HostAction, ToolBehaviour, TurnScenario } from "./scenario.js";
import { BLANK_TEXTS, type LlmDecisionNote, answeringTwice, turnHooks } from "./scenario-turn-hooks.js";
import { type ToolRuns, createRuntimeTools } from "./scenario-tools.js";
import { createSubAgentTools } from "./sub-agent-tools.js";
import { type HostileProbe, hostileHost } from "./hostile-host-harness.js";
import { withHandWrittenStreams } from "./hand-written-streams.js";
import { withWholeBlocks } from "./whole-blocks.js";
import { withLivePartials } from "./live-partials.js";
import { type QuestionProbe, hostAnswerer } from "./host-questions.js";
import {
  earlierExchange,
  markedText,
  requestEntries,
  withFallbackAnswers,
  withMalformedEvents,
  withUnreadableUsage,
  withMalformedFinals,
} from "./scripted-entries.js";

/** A turn of a scenario, plus the texts `respond` decisions answered with (by token). */
export interface TurnScenarioObservation extends TurnRunObservation {
  respondTexts: Map<string, string>;
  /** The decisions the LLM hooks handed out, in order. */
  llmDecisions: LlmDecisionNote[];
  /** What the hostile host saw, when the scenario has one. */
  hostile?: HostileProbe;
  /** The questions tools asked the host and its answers, when the scenario has a host answerer. */
  questions?: QuestionProbe;
  /** When each of the scenario's tool calls started, against the calls running then (where the run noted it). */
  toolRuns?: ToolRuns;
  /** Steering that says nothing the host handed over (poll answers, `enqueue`). */
  blankSteering?: BlankSteeringProbe;
}

/** How many messages that say nothing the host handed over to the runner (the poll answered them, or `enqueue` took them). */
export interface BlankSteeringProbe {
  handedOver: number;
}

const SESSION_ID = "session-fuzz";
const TURN_ID = "turn-fuzz";

function behavioursOf(scenario: TurnScenario): Map<string, ToolBehaviour> {
  return new Map(
    scenario.requests.flatMap((request) => request.response.calls.map((call) => [call.id, call.behaviour] as const)),
  );
}

/** Where a scenario's turn runs: its virtual clock and its ids. */
export interface TurnPlacement {
  clock: VirtualClock;
  sessionId: string;
  turnId: string;
}

/** A scenario made ready to run: how to observe its turn, and what its host keeps for the checks. */
export interface PreparedTurnScenario {
  options: ObserveTurnOptions;
  /** The runner's options this scenario needs (its message-id allocator, the retry jitter, a hostile logger). */
  runnerOptions: NonNullable<ObserveTurnOptions["runnerOptions"]>;
  respondTexts: Map<string, string>;
  llmDecisions: LlmDecisionNote[];
  hostile: HostileProbe | undefined;
  questions: QuestionProbe | undefined;
  toolRuns: ToolRuns;
  blankSteering: BlankSteeringProbe;
}

/** Runs the turn to its end on `clock` (a new virtual clock unless given) and records it. Never rejects for anything the runner does. */
export async function runTurnScenario(
  scenario: TurnScenario,
  clock: VirtualClock = createVirtualClock(),
): Promise<TurnScenarioObservation> {
  const prepared = prepareTurnScenario(scenario, {
    clock,
    sessionId: SESSION_ID,
    turnId: TURN_ID,
  });
  const observation = await observeTurn(prepared.options);
  return {
    ...observation,
    respondTexts: prepared.respondTexts,
    llmDecisions: prepared.llmDecisions,
    hostile: prepared.hostile,
    ...(prepared.questions && { questions: prepared.questions }),
    toolRuns: prepared.toolRuns,
    blankSteering: prepared.blankSteering,
  };
}

/**
 * The turn of `scenario` at `placement`: its input (scripted model and
 * tools on the placement's clock), host behaviour, and runner options.
 * Builds everything; runs nothing.
 */
export function prepareTurnScenario(scenario: TurnScenario, placement: TurnPlacement): PreparedTurnScenario {
  const { clock } = placement;
  const model = createScriptedModel(requestEntries(scenario.requests), { clock });
  const history = scenario.withHistory ? earlierExchange() : [];
  const controller = new AbortController();
  const respondTexts = new Map<string, string>();
  const llmDecisions: LlmDecisionNote[] = [];
  const toolRuns: ToolRuns = { running: new Set(), starts: [] };

  // The host's answers to the tools' questions (ctx.askHost); its late answers are its own timers.
  const answers = scenario.hostAnswers;
  const questions: QuestionProbe | undefined =
    answers === undefined
      ? undefined
      : { answerer: answers === "absent" ? "absent" : "present", asks: [], answers: [] };
  let settled = false;
  const answerTimers: unknown[] = [];
  const answerActionRequest =
    answers === undefined || questions === undefined
      ? undefined
      : hostAnswerer(answers, clock, questions, () => settled, answerTimers);

  // Every abort of the scenario's host, timed for the questions' checks.
  const abort = () => {
    if (questions && !controller.signal.aborted) questions.abortedAt = clock.now();
    controller.abort();
  };

  // The host's steering intake: steer/steerBatch arrive at the next poll, follow-ups only at an exit boundary.
  const pendingSteering: TurnInputMessage[] = [];
  const pendingAtExit: TurnInputMessage[] = [];
  let hostMessages = 0;
  const hostText = (kind: string, blank?: boolean) =>
    blank
      ? BLANK_TEXTS[++hostMessages % BLANK_TEXTS.length]!
      : markedText(`${kind}${++hostMessages}`, `${kind} from the host`);
  const blankSteering: BlankSteeringProbe = { handedOver: 0 };
  const blankEnqueued = () => void blankSteering.handedOver++;
  const perform = (action: HostAction) => {
    switch (action.kind) {
      case "steer":
        pendingSteering.push({ text: hostText("steer", action.blank !== undefined) });
        return;
      case "steerBatch": {
        const batchId = `batch${hostMessages}`;
        pendingSteering.push(
          { text: hostText("batch", action.blank === "all"), batchId },
          { text: hostText("batch", action.blank !== undefined), batchId },
        );
        return;
      }
      case "followUp":
        pendingAtExit.push({ text: hostText("followUp", action.blank !== undefined) });
        return;
      case "abort":
        abort();
        return;
    }
  };

  // What tools left for after the turn (a progress update once it settled), run before stragglers are counted.
  const afterTurn: (() => void)[] = [];

  const { asyncTicks, failAt, slow } = scenario.writer;
  // The late answers of a slow writer are the host's own timers: cleared before the leak count.
  const writerTimers: unknown[] = [];
  const write = (_event: RuntimeEvent, index: number): void | Promise<void> => {
    for (const action of scenario.actions)
      if (action.trigger.kind === "event" && action.trigger.index === index) perform(action);
    if (failAt?.index === index) {
      if (failAt.mode === "throw") throw new Error("the event writer failed");
      if (failAt.mode === "revoked") return revokedProxy() as never;
      if (failAt.mode === "thenableThrows") {
        const thenable = {
          then() {
            throw new Error("the event writer's thenable failed");
          },
        };
        return thenable as unknown as Promise<void>;
      }
      return Promise.reject(new Error("the event writer rejected"));
    }
    if (slow && index >= slow.from) {
      if (slow.answer === "never") return new Promise<void>(() => undefined);
      const { answer, ms } = slow;
      return new Promise<void>((resolve, reject) => {
        writerTimers.push(
          clock.setTimeout(
            () => (answer === "resolve" ? resolve() : reject(new Error("the event writer rejected late"))),
            ms,
          ),
        );
      });
    }
    if (asyncTicks === 0) return;
    return (async () => {
      for (let turn = 0; turn < asyncTicks; turn++) await Promise.resolve();
    })();
  };

  const polls = decisionSequence<"poll" | "throw">(
    scenario.steering.pollThrowsAt === undefined
      ? undefined
      : [...Array<"poll">(scenario.steering.pollThrowsAt).fill("poll"), "throw"],
    "poll",
  );
  const closes = decisionSequence(scenario.steering.tryBeginClose, true);
  const stopsAfterSteering = decisionSequence(scenario.steering.shouldStopAfterSteering, false);
  const stopsAfterTurn = decisionSequence(scenario.steering.shouldStopAfterTurn, false);

  const input: ObserveTurnOptions["input"] = {
    sessionId: placement.sessionId,
    turnId: placement.turnId,
    systemPrompt: "You are a generated scenario.",
    userMessage: { text: markedText("prompt", "the user's question") },
    history,
    ...(scenario.beforeUserMessages && {
      beforeUserMessages: [createHiddenMessage("hidden reminder before the prompt", "fuzz")],
    }),
    ...(scenario.hostWarnings && { warnings: [oddHostWarning()] }),
    ...(scenario.budget && { budget: scenario.budget }),
    ...(scenario.hookTimeoutMs !== undefined && { hookTimeoutMs: scenario.hookTimeoutMs }),
    llm: {
      model: model.model,
      streamFn: withHandWrittenStreams(
        withWholeBlocks(
          withUnreadableUsage(
            withMalformedEvents(
              withMalformedFinals(
                withLivePartials(withFallbackAnswers(model), scenario.livePartials),
                scenario.malformedFinals,
              ),
              scenario.malformedEvents,
            ),
            scenario.unreadableUsage,
          ),
          scenario.wholeBlocks,
        ),
        scenario.handWrittenStreams,
      ),
      ...(scenario.streamTimeouts === "off" && { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 }),
    },
    tools: [
      ...createRuntimeTools(scenario.toolModes, {
        clock,
        behaviours: behavioursOf(scenario),
        executed: [],
        ...(questions && { questions }),
        abort,
        afterTurn,
        toolRuns,
      }),
      ...createSubAgentTools(
        scenario.subAgents ?? [],
        clock,
        scenario.streamTimeouts === "default",
        questions && { probe: questions, rootTurnId: placement.turnId },
      ),
    ],
    disableBuiltinToolFallback: true,
    ...(answerActionRequest && { answerActionRequest }),
    hooks: scenario.hooksAnswerTwice
      ? answeringTwice(turnHooks(scenario.hooks, { abort, respondTexts, llmDecisions, blankEnqueued }))
      : turnHooks(scenario.hooks, { abort, respondTexts, llmDecisions, blankEnqueued }),
    llmRetry: scenario.retry.enabled
      ? {
          maxRetries: scenario.retry.maxRetries,
          baseDelayMs: scenario.retry.baseDelayMs,
          maxDelayMs: scenario.retry.maxDelayMs,
          maxRetryElapsedMs: scenario.retry.maxRetryElapsedMs,
        }
      : false,
    getSteeringMessages: ({ boundary }) => {
      if (polls() === "throw") throw new Error("getSteeringMessages failed");
      const received = pendingSteering.splice(0);
      if (boundary === "exit") received.push(...pendingAtExit.splice(0));
      blankSteering.handedOver += received.filter((message) => message.text.trim() === "").length;
      return received;
    },
    ...(scenario.steering.shouldStopAfterSteering && { shouldStopAfterSteering: () => stopsAfterSteering() }),
    ...(scenario.steering.shouldStopAfterTurn && { shouldStopAfterTurn: () => stopsAfterTurn() }),
    ...(scenario.steering.tryBeginClose && { tryBeginClose: () => closes() }),
  };

  const jitter = scenario.retry.enabled ? scenario.retry.jitter : 0.5;
  const hostTimers = scenario.actions.flatMap((action) =>
    action.trigger.kind === "time" ? [clock.setTimeout(() => perform(action), action.trigger.ms)] : [],
  );
  if (scenario.abortBeforeStart) abort();
  const failure = scenario.allocatorFailure;
  let allocations = 0;
  const allocateMessageId = () => {
    const index = allocations++;
    if (failure?.target === "message" && failure.index === index) {
      if (failure.mode === "throw") throw new Error("the message-id allocator failed");
      if (failure.mode === "reject") return Promise.reject(new Error("the message-id allocator rejected"));
      if (failure.mode === "revoked") return revokedProxy() as never;
      return (failure.mode === "empty" ? "" : 5) as never;
    }
    return `msg_${index + 1}`;
  };
  let eventIds = 0;
  const newEventId = () => {
    const index = eventIds++;
    if (failure?.target === "event" && failure.index === index) {
      if (failure.mode === "throw" || failure.mode === "reject") throw new Error("the event-id source failed");
      if (failure.mode === "revoked") return revokedProxy() as never;
      return (failure.mode === "empty" ? "" : 5) as never;
    }
    return `evt_${index + 1}`;
  };
  const runnerOptions = { random: () => jitter, allocateMessageId, newEventId };
  const hostile = scenario.hostile && hostileHost({ spec: scenario.hostile, input, runnerOptions, clock, controller });
  return {
    options: {
      input: hostile?.input ?? input,
      clock,
      controller,
      write: hostile ? hostile.write(write) : write,
      runnerOptions: hostile?.runnerOptions ?? runnerOptions,
      hostTimers: () => [...hostTimers, ...writerTimers, ...answerTimers],
      onSettled: () => {
        settled = true;
        hostile?.onSettled?.();
      },
      afterSettle: async () => {
        await hostile?.afterSettle?.();
        for (const late of afterTurn.splice(0)) late();
      },
      pacing: scenario.pacing,
    },
    runnerOptions: hostile?.runnerOptions ?? runnerOptions,
    respondTexts,
    llmDecisions,
    hostile: hostile?.probe,
    questions,
    toolRuns,
    blankSteering,
  };
}

/** A warning as an extension might report it, with fields of its own no JSON writes as they are: a bigint, `undefined` in a list, a cycle. */
function oddHostWarning(): RuntimeWarningPayload {
  const warning: Record<string, unknown> = {
    code: "extension_degraded",
    message: "the fuzz extension is down",
    extensionId: "fuzz",
    tools: ["fuzz_tool"],
    downSinceMs: 10n,
    attempts: [1, undefined],
  };
  warning.self = warning;
  return warning as unknown as RuntimeWarningPayload;
}
