/**
 * Every invariant in the fuzz README, applied to one observed run. The properties
 * (and the named fault tests) call these after each run.
 */
import { projectAgentMessagesForModel } from "@turnkit/agent-core";
import type { Message } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { TurnOutcome } from "@turnkit/protocol";
import { type ArgumentRunObservation, type ArgumentScenario, scriptedCallId } from "./argument-scenario.js";
import { checkEventsPersistable } from "./invariants/events-persistable.js";
import { checkExecutionModes } from "./invariants/execution-modes.js";
import { checkEventNumbering } from "./invariants/event-numbering.js";
import { checkNoEngineErrors, checkNoEngineErrorsInTranscript } from "./invariants/no-engine-errors.js";
import { checkHistoryDelivery } from "./invariants/history-delivery.js";
import { checkHostQuestions } from "./invariants/host-questions.js";
import { checkHostileHost } from "./invariants/hostile-host.js";
import { checkBlankSteeringLeftOut } from "./invariants/blank-steering.js";
import { checkNoLeaks } from "./invariants/leaks.js";
import { checkLoopEventGrammar, checkLoopTraceGrammar } from "./invariants/loop-event-grammar.js";
import { checkArgumentsPrototype, checkPrototypesUnchanged, type PrototypeSnapshot } from "./invariants/prototypes.js";
import { checkStreamChunks } from "./invariants/stream-chunks.js";
import { checkSubAgentAnswers, checkSubAgentEvents, withOwnEvents } from "./invariants/sub-agent-events.js";
import {
  checkMessagesWellFormed,
  checkToolTextWellFormed,
  checkProviderConversion,
  checkToolCallsAnswered,
} from "./invariants/transcript-replayable.js";
import { checkOddToolFlagsRefused } from "./invariants/tool-result-flags.js";
import { checkHookTimeoutBoundsHooks } from "./invariants/hook-timeout.js";
import { checkUnreadableDecisions } from "./invariants/hook-failures.js";
import { checkToolThrowsStayInTheirCall } from "./invariants/tool-throws.js";
import { checkTurnBudget } from "./invariants/turn-budget.js";
import { checkSubAgentBudgets } from "./invariants/sub-agent-budgets.js";
import { checkTurnEnding } from "./invariants/turn-ending.js";
import { InvariantViolation, describeValue } from "./invariants/violation.js";
import { checkAgentVisibleText, checkRunnerVisibleText } from "./invariants/visible-text.js";
import type { AgentRunObservation } from "./observe-agent.js";
import type { TurnRunObservation } from "./observe-turn.js";
import type { TurnScenarioObservation } from "./run-turn-scenario.js";
import type { TurnScenario } from "./scenario.js";
import { failureStreamedText, fallbackToken, markedText } from "./scripted-entries.js";

/** The messages an `Agent` with the default `convertToLlm` sends: user, assistant and tool results. */
function llmMessagesOf(transcript: readonly AgentMessage[]): Message[] {
  return transcript.filter(
    (message): message is Message =>
      message.role === "user" || message.role === "assistant" || message.role === "toolResult",
  );
}

/** Invariants 1, 2, 4 (transcript from `message_end`), 5 and 6 for an `Agent` run. */
export function checkAgentObservation(observation: AgentRunObservation): void {
  if (observation.rejections.length > 0) {
    throw new InvariantViolation(
      "the run ends (behaviour L9)",
      `prompt()/continue() rejected: ${describeValue(observation.rejections.map(String))}`,
    );
  }
  if (observation.stillStreaming)
    throw new InvariantViolation("the run ends (behaviour L9)", "the agent is still streaming after its run settled");
  checkLoopEventGrammar(observation.events);
  const ended = observation.events.flatMap((event) => (event.type === "message_end" ? [event.message] : []));
  const expected = [...observation.history, ...ended];
  const { transcript } = observation;
  if (transcript.length !== expected.length || transcript.some((message, index) => message !== expected[index])) {
    throw new InvariantViolation(
      "4 transcript from message_end, each once, in order",
      `the transcript holds ${transcript.length} messages, the history and message_end events ${expected.length}`,
    );
  }
  checkToolCallsAnswered(transcript, "agent transcript");
  checkToolThrowsStayInTheirCall(transcript);
  checkMessagesWellFormed(transcript, "agent transcript");
  checkProviderConversion(llmMessagesOf(transcript), "agent transcript");
  checkAgentVisibleText(observation.events);
  checkNoEngineErrorsInTranscript(transcript);
  checkNoLeaks(observation);
}

/** Every text an attempt of the scenario can stream, by token. */
export function scriptedTexts(scenario: TurnScenario, respondTexts: ReadonlyMap<string, string>): Map<string, string> {
  const texts = new Map<string, string>(respondTexts);
  for (const request of scenario.requests) {
    for (const failure of request.failures) texts.set(failure.token, failureStreamedText(failure));
    if (request.response.text !== undefined)
      texts.set(request.response.token, markedText(request.response.token, request.response.text));
  }
  for (let index = 0; index < 500; index++)
    texts.set(fallbackToken(index), markedText(fallbackToken(index), "all done"));
  return texts;
}

/** What {@link checkTurnInvariants} needs to know about how the turn was set up. */
export interface TurnCheckOptions {
  /** The caller's signal was aborted before `runTurn`. */
  abortedBeforeStart?: boolean;
  /** The writer (or the host's event-id source) fails on some event (it may add a debug.trace). */
  writerFails?: boolean;
  /** The writer answers late or never from some event on (events waiting behind it may be dropped, as announced). */
  writerMayStall?: boolean;
  /** The turn sets `hookTimeoutMs`: a writer that has not answered by then is given up on without an abort. */
  writerBounded?: boolean;
  /** Texts of every scripted attempt by token; without it the visible-text check is skipped. */
  scriptedTexts?: ReadonlyMap<string, string>;
  /** Names of the sub-agents the turn offered (their events are checked by invariant 16, the turn's own by the rest). */
  subAgentNames?: readonly string[];
  /** How many of the model's scripted sub-agent calls have a task that is not blank: no more child turns may start. */
  subAgentTasks?: number;
}

/**
 * Invariants 1 to 6, 13, 16, 20, 23 and 25 for a `PiTurnRunner` turn; returns its
 * outcome. Events passed on from sub-agents count for the turn's ending and
 * numbering (3, 13) and are checked by 16; the other invariants read the
 * turn's own events.
 */
export function checkTurnInvariants(full: TurnRunObservation, options: TurnCheckOptions = {}): TurnOutcome {
  const outcome = checkTurnEnding(full, {
    abortedBeforeStart: options.abortedBeforeStart ?? false,
    writerFails: options.writerFails ?? false,
  });
  checkEventNumbering(full, {
    writerMayStall: options.writerMayStall ?? false,
    writerBounded: options.writerBounded ?? false,
  });
  checkEventsPersistable(full.events);
  checkNoEngineErrors(full.events, outcome);
  checkSubAgentEvents(full, outcome, options.subAgentNames ?? [], options.subAgentTasks);
  const observation = withOwnEvents(full);
  checkLoopTraceGrammar(observation.events);
  checkStreamChunks(observation.events);
  const store = checkHistoryDelivery(observation);
  // The offered history is complete even when a host hook refused a change (it is recorded first).
  checkToolCallsAnswered(store, "host history");
  checkToolThrowsStayInTheirCall(store, outcome);
  checkOddToolFlagsRefused(store);
  checkSubAgentAnswers(store, options.subAgentNames ?? []);
  checkMessagesWellFormed(store, "host history");
  checkToolTextWellFormed(store, "host history");
  checkProviderConversion(projectAgentMessagesForModel(store), "host history, projected for the model");
  if (options.scriptedTexts) {
    const offeredMessages = observation.offered.flatMap(({ change }) => change.messages);
    checkRunnerVisibleText(observation.events, options.scriptedTexts, offeredMessages);
  }
  checkNoLeaks(full);
  return outcome;
}

/** What the invariants of every turn need to know of a scenario's host: how it started the turn and how its writer behaves. */
export function hostCheckOptions(scenario: TurnScenario): TurnCheckOptions {
  const { failAt, slow } = scenario.writer;
  return {
    abortedBeforeStart: scenario.abortBeforeStart,
    // A failing event-id source fails the turn like a failing writer: its failure trace may come before `aborted`.
    writerFails:
      failAt !== undefined ||
      slow?.answer === "reject" ||
      scenario.allocatorFailure?.target === "event" ||
      scenario.hostile?.callbackFailure?.callback === "newEventId",
    writerMayStall: slow !== undefined,
    writerBounded: (scenario.hostile?.hookTimeoutMs ?? scenario.hookTimeoutMs) !== undefined,
  };
}

/** Invariants 1 to 6, 13 and 23 for a generated turn, 7 to 10 when its host is hostile, 17 when its tools ask the host, 22 for its budget, 24 for its sub-agents; on a real clock (`timing: "real"`) the host questions' times are lower bounds. */
export function checkTurnObservation(
  scenario: TurnScenario,
  observation: TurnScenarioObservation,
  timing: "virtual" | "real" = "virtual",
): void {
  const outcome = checkTurnInvariants(observation, {
    ...hostCheckOptions(scenario),
    scriptedTexts: scriptedTexts(scenario, observation.respondTexts),
    subAgentNames: (scenario.subAgents ?? []).map((agent) => agent.name),
    subAgentTasks: scenario.requests
      .flatMap((request) => request.response.calls)
      .filter((call) => call.args.kind === "task" && call.args.task.trim() !== "").length,
  });
  checkTurnBudget(outcome, withOwnEvents(observation).events, scenario.budget);
  if (scenario.subAgents) {
    const offered = observation.offered.flatMap(({ change }) => change.messages);
    checkSubAgentBudgets(outcome, observation.events, offered, scenario.subAgents, scenario.budget);
  }
  if (observation.hostile) checkHostileHost(observation.hostile, observation, outcome);
  if (observation.blankSteering) checkBlankSteeringLeftOut(observation, outcome, observation.blankSteering.handedOver);
  checkHookTimeoutBoundsHooks(scenario, observation.drive.watchdogAborted);
  if (observation.toolRuns) checkExecutionModes(scenario, observation.toolRuns);
  checkUnreadableDecisions(outcome, observation.llmDecisions);
  if (observation.questions)
    checkHostQuestions(observation.questions, observation.events, outcome, observation.callerAborted, timing);
}

/** Every invariant of the path, every call answered, and no prototype touched, after malformed arguments. */
export function checkArgumentObservation(
  scenario: ArgumentScenario,
  observation: ArgumentRunObservation,
  before: PrototypeSnapshot,
): void {
  checkPrototypesUnchanged(before);
  checkArgumentsPrototype(observation.received);
  let transcript: AgentMessage[];
  if (observation.path === "agent") {
    checkAgentObservation(observation.run);
    transcript = observation.run.transcript;
  } else {
    // Arguments that are no object, or hold what JSON cannot write, reach events as one plain JSON object (invariant 20).
    checkTurnInvariants(observation.run);
    transcript = observation.run.offered.flatMap(({ change }) => change.messages);
  }
  const results = transcript.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : []));
  const answered = new Set(results);
  if ((scenario.ids ?? "distinct") !== "distinct") {
    // The runner gave repeated or empty ids ids of their own: one result per call, each under its own non-empty id.
    if (results.length !== scenario.calls.length || answered.size !== results.length || answered.has(""))
      throw new InvariantViolation(
        "2 tool calls answered",
        `${scenario.path}: ${scenario.calls.length} calls under ids "${scriptedCallId(scenario, 0)}" got results for ${describeValue(results)}`,
      );
    return;
  }
  const missing = observation.callIds.filter((id) => !answered.has(id));
  if (missing.length > 0)
    throw new InvariantViolation(
      "2 tool calls answered",
      `${scenario.path}: calls without a result: ${missing.join(", ")}`,
    );
}

/**
 * Invariant 2, for the malformed messages a host handed an `Agent`: each
 * call threw a `TypeError` that names the call (nothing was queued; the
 * transcript check shows none arrived).
 */
export function checkMalformedRefused(calls: readonly { call: string; thrown: unknown }[]): void {
  for (const { call, thrown } of calls) {
    if (!(thrown instanceof TypeError) || !/^(Agent\.\w+|agentLoop|agentLoopContinue): /.test(thrown.message)) {
      throw new InvariantViolation(
        "2 transcript replayable",
        `${call} should throw a TypeError naming the call, threw ${describeValue(thrown)}`,
      );
    }
  }
}
