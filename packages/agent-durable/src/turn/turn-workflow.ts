import { DBOS } from "@dbos-inc/dbos-sdk";
import { PiTurnRunner } from "@turnkit/agent-core";
import { ErrorCode, type TurnOutcome } from "@turnkit/protocol";
import { durableHooks } from "../steps/hook-steps.js";
import { durableStreamFn } from "../steps/model-request-step.js";
import { durableCloseIntake, durableSteeringSource } from "../steps/steering-step.js";
import { durableToolCall } from "../steps/tool-call-step.js";
import { DurableEventWriter } from "./durable-event-writer.js";
import type { BuildDurableTurn } from "./durable-turn-setup.js";
import type { TurnContext, TurnStores } from "./turn-context.js";
import { type DurableTurnRequest, turnRef } from "./turn-request.js";
import { streamSimple } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";

/** What the turn workflow needs from the worker that runs it. */
export interface TurnWorkflowDeps {
  stores: TurnStores;
  buildTurn: BuildDurableTurn;
  approvalTimeoutMs: number;
  /** The turns this process is running, for the abort watcher. */
  running: Set<TurnContext>;
}

/**
 * The body of the durable-turn workflow: one `PiTurnRunner` turn whose
 * seams are DBOS steps. DBOS runs it again from the top after a crash;
 * finished steps return their records, so it arrives where the crash
 * interrupted it with the same events, ids and history.
 */
export async function runTurnWorkflow(deps: TurnWorkflowDeps, request: DurableTurnRequest): Promise<TurnOutcome> {
  // Step 1: this execution's context: ids, the event writer, abort controllers, counters.
  const ctx = newTurnContext(deps, request);
  deps.running.add(ctx);
  try {
    // Step 2: the session history as it stood when the turn started (a step: a replay sees the same).
    const history = await DBOS.runStep(() => deps.stores.history.load(request.sessionId), {
      name: "turnkit.load-history",
    });
    ctx.counters.historyLength = history.length;
    // Step 3: the turn itself (see runDurableTurn).
    let outcome: TurnOutcome;
    try {
      outcome = await runDurableTurn(ctx, deps, request, history);
    } catch (error) {
      // A buildTurn that throws, or input the runner refuses (thrown before any event): the turn fails visibly.
      outcome = failBeforeStart(ctx, error);
    }
    // Step 4: every event in the log, then the outcome recorded, with the runner's usage and timing as plain fields.
    await ctx.writer.flush();
    const recorded = withPlainReport(outcome);
    await DBOS.runStep(() => deps.stores.turnTable.recordOutcome(ctx.ref.workflowId, recorded), {
      name: "turnkit.record-outcome",
    });
    return recorded;
  } finally {
    deps.running.delete(ctx);
  }
}

async function runDurableTurn(
  ctx: TurnContext,
  deps: TurnWorkflowDeps,
  request: DurableTurnRequest,
  history: AgentMessage[],
): Promise<TurnOutcome> {
  // The host's setup, built again on every execution.
  const setup = await deps.buildTurn(request);
  const tools = setup.tools ?? [];
  ctx.approvalTimeoutMs = setup.approvalTimeoutMs ?? deps.approvalTimeoutMs;
  // Per-call hooks are steps too; run after each call, they would start in completion order: calls then go one at a time.
  const sequential =
    setup.hooks?.onToolExecutionStartHook !== undefined || setup.hooks?.afterToolCallHook !== undefined;
  // A runner whose message ids follow the turn's order, running the turn with every seam durable.
  const runner = new PiTurnRunner({ allocateMessageId: () => messageId(ctx) });
  return runner.runTurn({
    sessionId: request.sessionId,
    turnId: request.turnId,
    systemPrompt: setup.systemPrompt,
    userMessage: request.userMessage,
    startMode: request.startMode,
    history,
    beforeUserMessages: setup.beforeUserMessages,
    llm: { ...setup.llm, streamFn: durableStreamFn(ctx, setup.llm.streamFn ?? streamSimple) },
    llmRetry: setup.llmRetry,
    tools: tools.map((tool) => durableToolCall(ctx, tool, { sequential })),
    disableBuiltinToolFallback: true,
    hooks: durableHooks(ctx, setup.hooks ?? {}, tools),
    eventWriter: ctx.writer,
    signal: ctx.turnAbort.signal,
    getSteeringMessages: durableSteeringSource(ctx),
    tryBeginClose: durableCloseIntake(ctx),
    shouldStopAfterSteering: setup.shouldStopAfterSteering,
    shouldStopAfterTurn: setup.shouldStopAfterTurn,
  });
}

function newTurnContext(deps: TurnWorkflowDeps, request: DurableTurnRequest): TurnContext {
  const ref = turnRef(request);
  return {
    ref,
    stores: deps.stores,
    writer: new DurableEventWriter(deps.stores.eventLog, {
      turnKey: ref.workflowId,
      sessionId: ref.sessionId,
      turnId: ref.turnId,
    }),
    turnAbort: new AbortController(),
    liveAbort: new AbortController(),
    approvalTimeoutMs: deps.approvalTimeoutMs,
    counters: { requests: 0, polls: 0, messages: 0, historyLength: 0 },
    wentLive: false,
  };
}

/** `<turn>#m<n>`, and `.r<k>` after the turn resumed k times, so a re-sent request never reuses the id of its interrupted attempt. */
function messageId(ctx: TurnContext): string {
  const n = ++ctx.counters.messages;
  return ctx.writer.resumes === 0
    ? `${ctx.ref.workflowId}#m${n}`
    : `${ctx.ref.workflowId}#m${n}.r${ctx.writer.resumes}`;
}

/**
 * The runner's outcome with its report (`usage`, `timing`, the same the
 * terminal `session.status` carries) as plain fields: the runner keeps them
 * non-enumerable, so the stored outcome and the workflow's result, both
 * serialised, would lose them.
 */
function withPlainReport(outcome: TurnOutcome): TurnOutcome {
  const { usage, timing } = outcome;
  return { ...outcome, ...(usage !== undefined && { usage }), ...(timing !== undefined && { timing }) };
}

function failBeforeStart(ctx: TurnContext, error: unknown): TurnOutcome {
  const message = error instanceof Error ? error.message : String(error);
  const turnError = { code: ErrorCode.Internal, message };
  ctx.writer.emit("session.status", { status: "running" });
  ctx.writer.emit("session.status", { status: "failed", error: turnError });
  return { kind: "failed", message, error: turnError };
}
