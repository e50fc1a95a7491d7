/**
 * Runs one generated {@link TurnScenario} through a real `PiTurnRunner`
 * against the scripted model on a virtual clock, and records what the host
 * saw: events, history offered and accepted, outcome, leaks.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { createScriptedModel } from "@turnkit/agent-loop/testing";
import {
  type AfterToolCallHook,
  type BeforeLlmCallHook,
  type EventWriter,
  type HistoryChange,
  type OnHistoryChangedHook,
  type PiTurnHooks,
  PiTurnRunner,
  type RunTurnInput,
  type TurnInputMessage,
  createHiddenMessage,
  createUserMessage,
} from "@turnkit/agent-core";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { abortListenerCount, probeRealTimers, unhandledRejections } from "./leak-probes.js";
import { decisionSequence, earlierExchange } from "./run-agent-scenario.js";
import type { HostAction, ToolBehaviour, TurnHookSpec, TurnScenario } from "./scenario.js";
import { createRuntimeTools } from "./scenario-tools.js";
import { markedText, requestEntries, withFallbackAnswers } from "./scripted-entries.js";
import { type DriveReport, createSteppingClock, driveUntilSettled, macrotask } from "./virtual-time.js";

/** One change offered to `onHistoryChangedHook`, and whether every host hook accepted it. */
export interface OfferedChange {
  change: HistoryChange;
  accepted: boolean;
}

/** Everything one turn left behind, for the invariants. */
export interface TurnRunObservation {
  /** Every event the writer was offered, in order (also the one it failed on). */
  events: RuntimeEvent[];
  /** How `runTurn` settled: each resolution and rejection, in order (exactly one resolution expected). */
  settlements: ({ kind: "resolved"; outcome: TurnOutcome } | { kind: "rejected"; error: unknown })[];
  history: AgentMessage[];
  /** Every history change offered to the host, in order, recorded before any host hook could fail. */
  offered: OfferedChange[];
  /** The caller's signal fired before `runTurn` settled. */
  callerAborted: boolean;
  drive: DriveReport;
  listenersLeft: number;
  pendingVirtualTimers: number;
  pendingRealTimers: number;
  unhandledRejections: unknown[];
  /** Texts `respond` decisions answered with, keyed by token. */
  respondTexts: Map<string, string>;
  /** An onHistoryChangedHook threw: the host's store may miss messages by design. */
  historyHookFailed: boolean;
}

const SESSION_ID = "session-fuzz";
const TURN_ID = "turn-fuzz";

function behavioursOf(scenario: TurnScenario): Map<string, ToolBehaviour> {
  return new Map(scenario.requests.flatMap((request) => request.response.calls.map((call) => [call.id, call.behaviour] as const)));
}

interface HookContext {
  abort: () => void;
  respondTexts: Map<string, string>;
  onHistoryHookFailure: () => void;
}

function turnHooks(spec: TurnHookSpec, context: HookContext, record: OnHistoryChangedHook, accept: OnHistoryChangedHook): PiTurnHooks {
  const hooks: PiTurnHooks = {};
  if (spec.beforeLlmCall) {
    const next = decisionSequence(spec.beforeLlmCall, "continue");
    let responds = 0;
    const hook: BeforeLlmCallHook = (event) => {
      const decision = next();
      switch (decision) {
        case "continue":
          return { type: "continue" };
        case "skip":
          return { type: "skip" };
        case "respond": {
          responds++;
          const token = `respond${responds}`;
          const text = markedText(token, "answered by beforeLlmCallHook");
          context.respondTexts.set(token, text);
          return { type: "respond", text };
        }
        case "replaceRequestMessages":
          return { type: "replaceRequestMessages", messages: [...event.messages] };
        case "replaceMessages":
          return {
            type: "replaceMessages",
            messages: [createUserMessage(markedText(`compacted${event.requestIndex}`, "summary of everything so far"))],
            metadata: { reason: "scenario compaction" },
          };
        case "appendMessage":
          return { type: "appendMessage", message: { content: "hidden context from the scenario", source: "fuzz" } };
        case "abort":
          return { type: "abort", reason: "the scenario aborted the call" };
        case "throw":
          throw new Error("beforeLlmCallHook failed");
        case "invalid":
          return { type: "no-such-decision" } as never;
      }
    };
    hooks.beforeLlmCallHook = hook;
  }
  if (spec.onLlmCallPrepared) {
    const next = decisionSequence(spec.onLlmCallPrepared, "observe");
    hooks.onLlmCallPreparedHook = () => {
      const decision = next();
      if (decision === "throw") throw new Error("onLlmCallPreparedHook failed");
      if (decision === "reject") return Promise.reject(new Error("onLlmCallPreparedHook rejected"));
    };
  }
  if (spec.afterLlmCall) {
    const next = decisionSequence(spec.afterLlmCall, "continue");
    let replacements = 0;
    hooks.afterLlmCallHook = () => {
      const decision = next();
      switch (decision) {
        case "continue":
          return { type: "continue" };
        case "replaceText":
          replacements++;
          return { type: "replaceText", text: markedText(`replaced${replacements}`, "text replaced by afterLlmCallHook") };
        case "retry":
          return { type: "retry", reason: "the scenario wants another answer", prompt: "please answer again" };
        case "fail":
          return { type: "fail", reason: "the scenario rejected the answer" };
        case "throw":
          throw new Error("afterLlmCallHook failed");
        case "invalid":
          return { type: "no-such-decision" } as never;
      }
    };
  }
  if (spec.beforeToolCall) {
    const next = decisionSequence(spec.beforeToolCall, "allow");
    hooks.beforeToolCallHook = () => {
      const decision = next();
      switch (decision) {
        case "allow":
          return undefined;
        case "block":
          return { block: true, reason: "blocked by the scenario" };
        case "blockPermission":
          return { block: true, reason: "the user refused", blockedBy: "permission" };
        case "throw":
          throw new Error("beforeToolCallHook failed");
        case "abort":
          context.abort();
          return undefined;
      }
    };
  }
  if (spec.onToolExecutionStart) {
    const next = decisionSequence(spec.onToolExecutionStart, "observe");
    hooks.onToolExecutionStartHook = () => {
      const decision = next();
      if (decision === "throw") throw new Error("onToolExecutionStartHook failed");
      if (decision === "abort") context.abort();
    };
  }
  if (spec.afterToolCall) {
    const next = decisionSequence(spec.afterToolCall, "none");
    const hook: AfterToolCallHook = () => {
      const decision = next();
      switch (decision) {
        case "none":
          return undefined;
        case "patchContent":
          return { content: [{ type: "text", text: "patched by afterToolCallHook" }] };
        case "isError":
          return { isError: true };
        case "terminate":
          return { terminate: true };
        case "terminateAgent":
          return { terminateAgent: true };
        case "throw":
          throw new Error("afterToolCallHook failed");
      }
    };
    hooks.afterToolCallHook = hook;
  }
  const historyHooks: OnHistoryChangedHook[] = [record];
  if (spec.onHistoryChanged) {
    const next = decisionSequence(spec.onHistoryChanged, "accept");
    historyHooks.push(() => {
      if (next() === "throw") {
        context.onHistoryHookFailure();
        throw new Error("onHistoryChangedHook failed");
      }
    });
  }
  historyHooks.push(accept);
  hooks.onHistoryChangedHook = historyHooks;
  if (spec.onStepEnd) {
    const next = decisionSequence(spec.onStepEnd, "none");
    let enqueued = 0;
    hooks.onStepEndHook = (event) => {
      const decision = next();
      if (decision === "throw") throw new Error("onStepEndHook failed");
      if (decision === "enqueue") {
        enqueued++;
        event.enqueue(markedText(`stepEnd${enqueued}`, "queued by onStepEndHook"));
      }
    };
  }
  return hooks;
}

/** Runs the turn to its end and records it. Never rejects for anything the runner does. */
export async function runTurnScenario(scenario: TurnScenario): Promise<TurnRunObservation> {
  const clock = createSteppingClock();
  const model = createScriptedModel(requestEntries(scenario.requests), { clock });
  const history = scenario.withHistory ? earlierExchange() : [];
  const controller = new AbortController();
  const abort = () => controller.abort();
  const respondTexts = new Map<string, string>();
  let historyHookFailed = false;

  // The host's steering intake: steer/steerBatch arrive at the next poll, follow-ups only at an exit boundary.
  const pendingSteering: TurnInputMessage[] = [];
  const pendingAtExit: TurnInputMessage[] = [];
  let hostMessages = 0;
  const hostText = (kind: string) => markedText(`${kind}${++hostMessages}`, `${kind} from the host`);
  const perform = (action: HostAction) => {
    switch (action.kind) {
      case "steer":
        pendingSteering.push({ text: hostText("steer") });
        return;
      case "steerBatch": {
        const batchId = `batch${hostMessages}`;
        pendingSteering.push({ text: hostText("batch"), batchId }, { text: hostText("batch"), batchId });
        return;
      }
      case "followUp":
        pendingAtExit.push({ text: hostText("followUp") });
        return;
      case "abort":
        controller.abort();
        return;
    }
  };

  const events: RuntimeEvent[] = [];
  const { asyncTicks, failAt } = scenario.writer;
  const writer: EventWriter = {
    push(event) {
      const index = events.length;
      events.push(event);
      for (const action of scenario.actions) if (action.trigger.kind === "event" && action.trigger.index === index) perform(action);
      if (failAt?.index === index) {
        if (failAt.mode === "throw") throw new Error("the event writer failed");
        return Promise.reject(new Error("the event writer rejected"));
      }
      if (asyncTicks === 0) return;
      return (async () => {
        for (let turn = 0; turn < asyncTicks; turn++) await Promise.resolve();
      })();
    },
  };

  const offered: OfferedChange[] = [];
  const hooks = turnHooks(
    scenario.hooks,
    { abort, respondTexts, onHistoryHookFailure: () => (historyHookFailed = true) },
    (change) => void offered.push({ change, accepted: false }),
    () => {
      offered[offered.length - 1]!.accepted = true;
    },
  );

  const polls = decisionSequence<"poll" | "throw">(
    scenario.steering.pollThrowsAt === undefined ? undefined : [...Array<"poll">(scenario.steering.pollThrowsAt).fill("poll"), "throw"],
    "poll",
  );
  const closes = decisionSequence(scenario.steering.tryBeginClose, true);
  const stopsAfterSteering = decisionSequence(scenario.steering.shouldStopAfterSteering, false);
  const stopsAfterTurn = decisionSequence(scenario.steering.shouldStopAfterTurn, false);

  const input: RunTurnInput = {
    sessionId: SESSION_ID,
    turnId: TURN_ID,
    systemPrompt: "You are a generated scenario.",
    userMessage: { text: markedText("prompt", "the user's question") },
    history,
    ...(scenario.beforeUserMessages && { beforeUserMessages: [createHiddenMessage("hidden reminder before the prompt", "fuzz")] }),
    llm: {
      model: model.model,
      streamFn: withFallbackAnswers(model),
      ...(scenario.streamTimeouts === "off" && { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 }),
    },
    tools: createRuntimeTools(scenario.toolModes, { clock, behaviours: behavioursOf(scenario), executed: [] }),
    disableBuiltinToolFallback: true,
    hooks,
    llmRetry: scenario.retry.enabled
      ? {
          maxRetries: scenario.retry.maxRetries,
          baseDelayMs: scenario.retry.baseDelayMs,
          maxDelayMs: scenario.retry.maxDelayMs,
          maxRetryElapsedMs: scenario.retry.maxRetryElapsedMs,
        }
      : false,
    eventWriter: writer,
    signal: controller.signal,
    getSteeringMessages: ({ boundary }) => {
      if (polls() === "throw") throw new Error("getSteeringMessages failed");
      const received = pendingSteering.splice(0);
      if (boundary === "exit") received.push(...pendingAtExit.splice(0));
      return received;
    },
    ...(scenario.steering.shouldStopAfterSteering && { shouldStopAfterSteering: () => stopsAfterSteering() }),
    ...(scenario.steering.shouldStopAfterTurn && { shouldStopAfterTurn: () => stopsAfterTurn() }),
    ...(scenario.steering.tryBeginClose && { tryBeginClose: () => closes() }),
  };

  let messageIds = 0;
  let eventIds = 0;
  const jitter = scenario.retry.enabled ? scenario.retry.jitter : 0.5;
  const runner = new PiTurnRunner({
    clock,
    random: () => jitter,
    allocateMessageId: () => `msg_${++messageIds}`,
    newEventId: () => `evt_${++eventIds}`,
  });
  const hostTimers = scenario.actions.flatMap((action) => (action.trigger.kind === "time" ? [clock.setTimeout(() => perform(action), action.trigger.ms)] : []));
  if (scenario.abortBeforeStart) controller.abort();

  const settlements: TurnRunObservation["settlements"] = [];
  let callerAborted = false;
  const rejectionsBefore = unhandledRejections().seen.length;
  const realTimers = probeRealTimers();
  let drive: DriveReport;
  try {
    const run = runner.runTurn(input).then(
      (outcome) => {
        callerAborted = controller.signal.aborted;
        settlements.push({ kind: "resolved", outcome });
      },
      (error: unknown) => {
        callerAborted = controller.signal.aborted;
        settlements.push({ kind: "rejected", error });
      },
    );
    drive = await driveUntilSettled(run, clock, abort);
    for (const handle of hostTimers) clock.clearTimeout(handle);
    for (let turn = 0; turn < 3; turn++) await macrotask();
  } finally {
    realTimers.restore();
  }
  return {
    events,
    settlements,
    history,
    offered,
    callerAborted,
    drive,
    listenersLeft: abortListenerCount(controller.signal),
    pendingVirtualTimers: clock.pendingCount(),
    pendingRealTimers: realTimers.pending(),
    unhandledRejections: unhandledRejections().seen.slice(rejectionsBefore),
    respondTexts,
    historyHookFailed,
  };
}
