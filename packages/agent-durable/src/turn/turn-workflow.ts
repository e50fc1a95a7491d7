import { createUserMessage, PiTurnRunner, type TurnInputMessage } from "@turnkit/agent-core";
import { callIdOccurrences } from "@turnkit/agent-core/internal";
import {
  ErrorCode,
  outcomeToStatus,
  type ProtocolAnyMessage,
  type RuntimeWarningPayload,
  type TerminalSessionStatusPayload,
  type TurnOutcome,
} from "@turnkit/protocol";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { durableHooks } from "../steps/hook-steps.js";
import { durableLlm } from "../steps/model-request-step.js";
import { runRecordedStep } from "../steps/recorded-step.js";
import { deliveredTakeKeys, durableCloseIntake, durableSteeringSource } from "../steps/steering-step.js";
import { durableTools } from "../steps/durable-sub-agent.js";
import type { TurnExecution } from "../store/handing-back-pool.js";
import { TurnClaim } from "../store/turn-claim.js";
import { isDatabaseUnreachable } from "../store/unreachable-database.js";
import { DurableEventWriter } from "./durable-event-writer.js";
import type { BuildDurableTurn, DurableTurnSetup } from "./durable-turn-setup.js";
import { HistoryWriter } from "./history-writer.js";
import { outcomeOfStatus } from "./outcome-of-status.js";
import { StepLanes } from "./step-lanes.js";
import { TurnAbort } from "./turn-abort.js";
import type { EffectLease, TurnContext, TurnStores } from "./turn-context.js";
import { type DurableTurnRequest, turnRef } from "./turn-request.js";
import type { AgentMessage } from "@turnkit/agent-loop";

/** What the turn workflow needs from the worker that runs it. */
export interface TurnWorkflowDeps {
  stores: TurnStores;
  buildTurn: BuildDurableTurn;
  approvalTimeoutMs: number;
  /** The worker's lease time: a claim confirmed longer ago than a quarter of it is checked again before an effect. */
  leaseMs: number;
  /** The worker's lease, which must cover every effect (see `EffectLease`). */
  lease: EffectLease;
  /** The turns this process is running, for the abort watcher. */
  running: Set<TurnContext>;
  /** A test-only crash point (see `fault-point.ts`), or undefined. */
  faultPoint?: string;
  /**
   * What a statement of the turn that failed with `error` rejects with:
   * when its connection was lost, the turn is handed back first and the
   * execution's `superseded` error comes back (see `HandingBackPool`).
   */
  lostConnection(error: unknown): Promise<unknown>;
  /**
   * Queues the turn of `execution` again, revoking its claim, unless
   * another execution holds it already (the worker's hand-back of a lost
   * connection, see `handBackLostTurns`); resolves once it is no longer
   * that execution's.
   */
  handBack(execution: TurnExecution): Promise<unknown>;
}

/**
 * The body of the durable-turn workflow: one `PiTurnRunner` turn whose
 * seams are DBOS steps. DBOS runs it again from the top after a crash;
 * finished steps return their records, so it arrives where the crash
 * interrupted it with the same events, ids and history.
 */
export async function runTurnWorkflow(deps: TurnWorkflowDeps, request: DurableTurnRequest): Promise<TurnOutcome> {
  // Taken from the queue while the worker hands its turns back: it runs nothing and ends nothing here (its claim is
  // revoked when the turns are handed back, and another worker runs it).
  if (deps.lease.stopped) return new Promise<never>(() => {});
  return endsNothingOnceShuttingDown(deps.lease, () => handedBackWhenSuperseded(deps, request));
}

/**
 * Runs the execution; when it stops `superseded` (a write or a check found
 * its claim gone), hands the turn back before the error reaches DBOS. The
 * claim may be refused while DBOS's token is still this execution's: a
 * crash of the database lost step records it acted on (see `TurnClaim`).
 * DBOS, whose token then matches, would record the error as the turn's
 * failure; queued again first, the turn goes on from what the database
 * kept, and DBOS records nothing of this execution. (Before, such a turn
 * failed with `superseded`.) When another worker took the turn over, the
 * hand-back finds it no longer this execution's and changes nothing.
 */
async function handedBackWhenSuperseded(deps: TurnWorkflowDeps, request: DurableTurnRequest): Promise<TurnOutcome> {
  const { workflowId } = turnRef(request);
  const token = TurnClaim.current(workflowId).token;
  try {
    return await runTurnExecution(deps, request);
  } catch (error) {
    if (DurableTurnError.isInstance(error) && error.code === DurableTurnErrorCode.Superseded)
      await deps.handBack({ turnKey: workflowId, token });
    throw error;
  }
}

/**
 * Runs a workflow's body; when it fails once the worker's `lease` was
 * stopped (the worker began to shut down), the promise returned never
 * settles: the execution stops there, as if its process had died, and
 * DBOS records nothing. Such a failure is the shutdown's (a pool closed
 * under a statement; a step's own failure stops in the step already), and
 * DBOS, whose pool may still be open, would record it as the turn's; the
 * turn, still pending, is handed back (or its lease taken over) and goes
 * on in another worker.
 */
export async function endsNothingOnceShuttingDown<T>(
  lease: { readonly stopped: boolean },
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (lease.stopped) return new Promise<never>(() => {});
    throw error;
  }
}

async function runTurnExecution(deps: TurnWorkflowDeps, request: DurableTurnRequest): Promise<TurnOutcome> {
  // A turn cancelled with DBOS's tools was ended as aborted by the durable layer: resumed later, it runs nothing.
  const closed = await deps.stores.cancelledTurns.closedOutcome(turnRef(request).workflowId);
  if (closed !== undefined) return closed;
  // Step 1: this execution's context: ids, the event and history writers, the abort, counters.
  const ctx = newTurnContext(deps, request);
  deps.running.add(ctx);
  try {
    // Step 2: the host's setup, built again on every execution (one that throws fails the turn in step 4).
    const built = await buildSetup(deps, request);
    // Step 3: the session history as it stood when the turn started, and the setup's warnings as the first
    // execution found them, in one step: a replay (a recovery) sees the same, whatever its own buildTurn found.
    const { history, warnings } = await runRecordedStep(ctx, "turnkit.start", async () => {
      // The turn's row, when the start that queued the turn died before it wrote it.
      await deps.stores.turnTable.ensureTurn(ctx.ref, request);
      // An earlier turn of the session cancelled with DBOS's tools (which let this one start) ends first, its
      // calls answered in the history this turn loads.
      await deps.stores.cancelledTurns.closeInSession(request.sessionId);
      return { history: await deps.stores.history.load(request.sessionId), warnings: built.setup?.warnings ?? [] };
    });
    ctx.history.startAfter(history.length);
    // Step 4: the turn itself (see runDurableTurn); the runner's terminal status waits in the writer.
    let outcome: TurnOutcome;
    try {
      if (built.setup === undefined) throw built.error;
      outcome = await runDurableTurn(ctx, deps, request, { setup: built.setup, history, warnings });
    } catch (error) {
      // A buildTurn that throws, or input the runner refuses (thrown before any event): the turn fails visibly.
      outcome = failBeforeStart(ctx, error);
    }
    // Step 5: however the turn ended, its intake closes; steering the turn never received is handed back as undelivered.
    const handedBack = await runRecordedStep(ctx, "turnkit.close-intake-at-end", () =>
      deps.stores.steering.closeAtEnd(ctx.claim, deliveredTakeKeys(ctx)),
    );
    const recorded = withPlainReport(withHandedBack(outcome, handedBack));
    // Step 6: the terminal status (with what was handed back), after every history change is stored; then the outcome.
    ctx.writer.end(handedBack.length > 0 ? outcomeToStatus(recorded) : undefined);
    await flushWriters(ctx, deps);
    // Step 7: the outcome as the log's terminal status says it (an earlier execution may have logged it, with its
    // own timing), stored; a replay returns this step's record, so every reader sees one outcome.
    return runRecordedStep(ctx, "turnkit.record-outcome", async () => {
      const logged = await deps.stores.eventLog.terminal(ctx.ref.workflowId);
      const final = logged ? outcomeOfStatus(logged.payload) : recorded;
      await deps.stores.turnTable.recordOutcome(ctx.claim, final, ctx.history.storedLength);
      return final;
    });
  } finally {
    deps.running.delete(ctx);
  }
}

/**
 * Waits until the turn's history changes and events are stored. The
 * writers try a failed write again a few times; when they give up because
 * the database could not be reached (a restart longer than their retries),
 * the turn is handed back, as on any lost connection, instead of its
 * workflow failing with `log_write` or `history_write` and leaving a log
 * without an ending.
 */
async function flushWriters(ctx: TurnContext, deps: TurnWorkflowDeps): Promise<void> {
  try {
    await ctx.history.flush();
    await ctx.writer.flush();
  } catch (error) {
    const gaveUp =
      DurableTurnError.isInstance(error) &&
      (error.code === DurableTurnErrorCode.LogWrite || error.code === DurableTurnErrorCode.HistoryWrite);
    if (gaveUp && isDatabaseUnreachable(error.cause)) {
      const handedBack = await deps.lostConnection(error.cause);
      throw handedBack === error.cause ? error : handedBack;
    }
    throw error;
  }
}

/** The host's setup for this execution, or what its `buildTurn` threw. */
async function buildSetup(
  deps: TurnWorkflowDeps,
  request: DurableTurnRequest,
): Promise<{ setup: DurableTurnSetup; error?: undefined } | { setup?: undefined; error: unknown }> {
  try {
    return { setup: await deps.buildTurn(request) };
  } catch (error) {
    return { error };
  }
}

async function runDurableTurn(
  ctx: TurnContext,
  deps: TurnWorkflowDeps,
  request: DurableTurnRequest,
  start: { setup: DurableTurnSetup; history: AgentMessage[]; warnings: RuntimeWarningPayload[] },
): Promise<TurnOutcome> {
  const { setup, history, warnings } = start;
  const tools = setup.tools ?? [];
  ctx.approvalTimeoutMs = setup.approvalTimeoutMs ?? deps.approvalTimeoutMs;
  // Per-call hooks are steps too; run after each call, they would start in completion order: calls then go one at a time.
  const sequential =
    setup.hooks?.onToolExecutionStartHook !== undefined || setup.hooks?.afterToolCallHook !== undefined;
  const { hooks, afterTurn } = durableHooks(ctx, setup.hooks ?? {}, tools, { storeHistory: true, lanes: !sequential });
  // A runner whose message ids follow the turn's order, running the turn with every seam durable.
  const runner = new PiTurnRunner({ allocateMessageId: ({ turnId }) => messageId(ctx, turnId) });
  const outcome = await runner.runTurn({
    sessionId: request.sessionId,
    turnId: request.turnId,
    systemPrompt: setup.systemPrompt,
    userMessage: request.userMessage,
    startMode: request.startMode,
    history,
    beforeUserMessages: setup.beforeUserMessages,
    warnings,
    llm: durableLlm(ctx, setup.llm),
    llmRetry: setup.llmRetry,
    tools: durableTools(ctx, tools, { sequential, root: true }),
    disableBuiltinToolFallback: true,
    hooks,
    eventWriter: ctx.writer,
    signal: ctx.turnAbort.signal,
    getSteeringMessages: durableSteeringSource(ctx),
    tryBeginClose: durableCloseIntake(ctx),
    shouldStopAfterSteering: setup.shouldStopAfterSteering,
    shouldStopAfterTurn: setup.shouldStopAfterTurn,
  });
  await afterTurn();
  return outcome;
}

function newTurnContext(deps: TurnWorkflowDeps, request: DurableTurnRequest): TurnContext {
  const ref = turnRef(request);
  const claim = TurnClaim.current(ref.workflowId);
  const history = new HistoryWriter(deps.stores.history, claim, ref.sessionId);
  const turnAbort = new TurnAbort();
  const liveAbort = new AbortController();
  const writer = new DurableEventWriter(deps.stores.eventLog, history, claim, {
    sessionId: ref.sessionId,
    turnId: ref.turnId,
  });
  // Taken over by another worker: stop the running request or tool and end the turn here (it writes nothing more).
  claim.revoked.addEventListener("abort", () => {
    liveAbort.abort();
    turnAbort.record();
  });
  // The log refused this execution's events (it diverged from an earlier one): the turn stops as an aborted one
  // does, a waiting approval included (the abort watcher sends its notice), and ends `failed` naming the conflict.
  writer.diverged.addEventListener("abort", () => {
    liveAbort.abort();
    deps.stores.turnTable.requestAbortAsOwner(claim).catch(() => {});
  });
  return {
    ref,
    stores: deps.stores,
    claim,
    lease: deps.lease,
    writer,
    history,
    turnAbort,
    liveAbort,
    approvalTimeoutMs: deps.approvalTimeoutMs,
    claimFreshMs: deps.leaseMs / 4,
    faultPoint: deps.faultPoint,
    steering: { pending: [], tookSincePoll: false, delivered: [] },
    counters: { requests: 0, polls: 0, messages: 0, childMessages: new Map() },
    approvalNames: callIdOccurrences(),
    lanes: new StepLanes(() => writer.endParallel()),
    firstLiveRead: undefined,
  };
}

/**
 * `<turn>#m<n>`, and `.r<k>` after the turn resumed k times, so a re-sent
 * request never reuses the id of its interrupted attempt. A sub-agent
 * turn's messages are numbered in that turn (`<turn>/<call ids>#m<n>`), so
 * sub-agent calls running at once never take each other's numbers; its
 * resumes count those of its parallel call's lane too.
 */
function messageId(ctx: TurnContext, turnId: string): string {
  const root = ctx.ref.turnId;
  let resumes = ctx.writer.resumes;
  let prefix = ctx.ref.workflowId;
  let n: number;
  if (turnId === root || !turnId.startsWith(`${root}/`)) {
    n = ++ctx.counters.messages;
  } else {
    const path = turnId.slice(root.length + 1);
    n = (ctx.counters.childMessages.get(path) ?? 0) + 1;
    ctx.counters.childMessages.set(path, n);
    prefix = `${prefix}/${path}`;
    resumes += ctx.lanes.of(path.split("/")[0]!)?.resumes ?? 0;
  }
  return resumes === 0 ? `${prefix}#m${n}` : `${prefix}#m${n}.r${resumes}`;
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

/** The outcome with the steering messages no poll took added to the messages it hands back, as user messages. */
function withHandedBack(outcome: TurnOutcome, messages: readonly TurnInputMessage[]): TurnOutcome {
  if (messages.length === 0) return outcome;
  const handedBack = messages.map(
    (message) =>
      createUserMessage(message.text, { images: message.images, batchId: message.batchId }) as ProtocolAnyMessage,
  );
  const { usage, timing } = outcome;
  return {
    ...outcome,
    undeliveredMessages: [...(outcome.undeliveredMessages ?? []), ...handedBack],
    ...(usage !== undefined && { usage }),
    ...(timing !== undefined && { timing }),
  };
}

function failBeforeStart(ctx: TurnContext, error: unknown): TurnOutcome {
  const message = error instanceof Error ? error.message : String(error);
  const turnError = { code: ErrorCode.Internal, message };
  ctx.writer.emit("session.status", { status: "running" });
  ctx.writer.emit("session.status", { status: "failed", error: turnError });
  return { kind: "failed", message, error: turnError };
}
