import { DBOS } from "@dbos-inc/dbos-sdk";
import type {
  BeforeToolCallDecision,
  BeforeToolCallHook,
  HistoryChange,
  HookList,
  OnHistoryChangedHook,
  OnStepEndHook,
  PiTurnHooks,
  ToolCallHookEvent,
} from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { Lane } from "../turn/step-lanes.js";
import { addLane, seamsStopped, type TurnContext } from "../turn/turn-context.js";
import { awaitApproval, awaitChildApproval } from "./approval-wait.js";
import { isSubAgentTool } from "@turnkit/agent-core";
import type { DurableRuntimeTool } from "./durable-tool.js";
import { confirmClaimBeforeEffect } from "./confirm-claim.js";
import { runRecordedStep } from "./recorded-step.js";
import { noteStepSteering, withSteeringAtEnd } from "./steering-step.js";
import type { StepSteering } from "../store/steering-inbox.js";

/** A `beforeToolCallHook` decision of a durable turn: the runner's, or "ask a person first". */
export type DurableBeforeToolCallDecision = BeforeToolCallDecision | { approval: "required"; reason?: string };

/** A `beforeToolCallHook` that may ask for a person's approval. */
export type DurableBeforeToolCallHook = (
  event: ToolCallHookEvent,
  signal: AbortSignal,
) => DurableBeforeToolCallDecision | Promise<DurableBeforeToolCallDecision>;

/**
 * The hooks of a durable turn: the runner's eight, with a
 * `beforeToolCallHook` that may also answer `{ approval: "required" }`.
 * Every hook runs as a DBOS step (see {@link durableHooks}).
 */
export type DurableTurnHooks = Omit<PiTurnHooks, "beforeToolCallHook"> & {
  /**
   * Run in order before each tool call, each as its own step. The first
   * `block` wins; `{ approval: "required" }` (or a tool with
   * `requiresApproval`) makes the call wait for a person once the hooks have
   * run, and it runs only when approved.
   */
  beforeToolCallHook?: HookList<DurableBeforeToolCallHook>;
};

function list<T>(hooks: HookList<T> | undefined): readonly T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? (hooks as readonly T[]) : [hooks as T];
}

/**
 * Runs `call` as a step named after the hook; its result is the record a
 * replay returns instead of calling it. Like every step while the turn
 * runs, it takes the steering waiting when it ends (see `takeSteeringInStep`).
 * In a `lane`, the step waits for the lane's turn.
 */
async function step<T>(ctx: TurnContext, lane: Lane | undefined, name: string, call: () => T | Promise<T>): Promise<T> {
  const nested = DBOS.isInStep();
  const record = await ctx.lanes.step(nested ? undefined : lane, () =>
    runRecordedStep(
      ctx,
      `turnkit.hook:${name}`,
      async (): Promise<{ result: T; steering?: StepSteering }> => ({ result: await fenced(ctx, call) }),
      // The steering waiting when it ends, in its checkpoint (nested in another step, it takes none).
      (hookRecord, stepId) => withSteeringAtEnd(ctx, hookRecord, stepId),
    ),
  );
  noteStepSteering(ctx, record.steering);
  return record.result;
}

/** A hook call as a step after the runner returned: no poll follows, so it takes no steering. */
function stepAfterTurn<T>(ctx: TurnContext, name: string, call: () => T | Promise<T>): Promise<T> {
  return runRecordedStep(ctx, `turnkit.hook:${name}`, () => fenced(ctx, call));
}

/**
 * Calls a host hook live, once this execution may make an effect outside
 * the database (see `confirmClaimBeforeEffect`): a hook may send requests
 * of its own (a compaction's summary, a notification), so a worker whose
 * lease aged, or whose turn another worker took over, calls none.
 */
async function fenced<T>(ctx: TurnContext, call: () => T | Promise<T>): Promise<T> {
  await confirmClaimBeforeEffect(ctx, "hook-before-run");
  return call();
}

/** Each host hook as a pending seam call around its step; once the abort is recorded, not called (answers nothing at once). */
function stepped<THook extends (...args: any[]) => unknown>(
  ctx: TurnContext,
  lane: Lane | undefined,
  name: string,
  hooks: HookList<THook> | undefined,
): THook[] | undefined {
  const all = list(hooks);
  if (all.length === 0) return undefined;
  return all.map(
    (hook) =>
      ((...args: Parameters<THook>) =>
        seamsStopped(ctx, lane)
          ? undefined
          : ctx.turnAbort.around(() =>
              step(ctx, lane, name, () => hook(...args) as ReturnType<THook>),
            )) as unknown as THook,
  );
}

/** The runner's hooks of a durable turn, and what the workflow runs once the runner returned. */
export interface DurableRunnerHooks {
  hooks: PiTurnHooks;
  /** Hands the history changes made after the abort to the host's `onHistoryChangedHook`s, each call a step. */
  afterTurn(): Promise<void>;
}

/**
 * Turns the host's hooks into the runner's hooks for a durable turn.
 *
 * Every host hook runs as a DBOS step: when it finished before a crash, its
 * recorded result is used on replay and it is not called again; a hook that
 * was running at the crash is called again. So each hook runs at least
 * once and, unless a crash interrupts it, exactly once: side effects in
 * hooks must be idempotent (key them by `turnId`, `toolCall.id`,
 * `requestIndex`). Results must be JSON (they are the record).
 *
 * Added by the durable layer: every history change is stored in the session
 * history (each message once, at a position fixed in advance; not with
 * `storeHistory: false`, for a sub-agent's child turn) before the
 * host's `onHistoryChangedHook` runs; `enqueue` calls of `onStepEndHook`
 * are recorded and repeated on replay; `beforeToolCallHook` may ask for
 * approval, and tools with `requiresApproval` always do.
 *
 * Once the turn's abort is recorded (or a host history hook failed it),
 * host hooks are no longer called while
 * the runner finishes the turn (the runner would give them only its abort
 * grace, which a replay could not reproduce): the history changes made from
 * then on reach the host's `onHistoryChangedHook`s in order once the runner
 * returned ({@link DurableRunnerHooks.afterTurn}).
 *
 * Options: `storeHistory` (the turn's own hooks), or a sub-agent turn's
 * hooks in its parallel call's `lane` (each step waits for the lane's
 * turn; the lane's own records stop its seams), and whose approvals wait
 * as stored requests (see `awaitChildApproval`). With `lanes`, the calls
 * of the turn's `parallel` tools and sub-agents the runner admits become
 * lanes (see `StepLanes`).
 */
export function durableHooks(
  ctx: TurnContext,
  hooks: DurableTurnHooks,
  tools: readonly DurableRuntimeTool[],
  options: { storeHistory: boolean; lanes?: boolean; lane?: Lane } = { storeHistory: true },
): DurableRunnerHooks {
  const { lane } = options;
  const approvalTools = new Set(tools.filter((tool) => tool.requiresApproval).map((tool) => tool.def.name));
  // The tools whose admitted calls become lanes: those that may run in parallel, sub-agents or not.
  const laneTools = new Map(
    options.lanes
      ? tools
          .filter((tool) => tool.def.executionMode === "parallel")
          .map((tool) => [tool.def.name, isSubAgentTool(tool)])
      : [],
  );
  const beforeToolHooks = list(hooks.beforeToolCallHook);
  const historyHooks = list(hooks.onHistoryChangedHook);
  const afterAbort: HistoryChange[] = [];
  return {
    hooks: {
      beforeLlmCallHook: stepped(ctx, lane, "beforeLlmCall", hooks.beforeLlmCallHook),
      onLlmCallPreparedHook: stepped(ctx, lane, "onLlmCallPrepared", hooks.onLlmCallPreparedHook),
      afterLlmCallHook: stepped(ctx, lane, "afterLlmCall", hooks.afterLlmCallHook),
      onToolExecutionStartHook: stepped(ctx, lane, "onToolExecutionStart", hooks.onToolExecutionStartHook),
      afterToolCallHook: stepped(ctx, lane, "afterToolCall", hooks.afterToolCallHook),
      beforeToolCallHook: beforeToolCall(ctx, lane, beforeToolHooks, approvalTools, laneTools),
      onHistoryChangedHook: [
        ...(options.storeHistory ? [(change: HistoryChange) => ctx.history.take(change)] : []),
        ...(historyHooks.length > 0 ? [hostHistoryHooks(ctx, lane, historyHooks, afterAbort)] : []),
      ],
      onStepEndHook: list(hooks.onStepEndHook).map((hook) => stepEnd(ctx, lane, hook)),
    },
    afterTurn: async () => {
      const context = { sessionId: ctx.ref.sessionId, turnId: ctx.ref.turnId };
      for (const change of afterAbort) {
        for (const hook of historyHooks) {
          // The turn has ended: a failing host hook can change nothing any more (the history is stored).
          await stepAfterTurn(ctx, "onHistoryChanged", () => hook(change, context)).catch(() => undefined);
        }
      }
    },
  };
}

/**
 * The host's history hooks, in order, each call a step, while the turn runs;
 * once the abort is recorded, the change waits for `afterTurn`. A hook that
 * throws fails the turn (the runner's contract) and stops its seams.
 */
function hostHistoryHooks(
  ctx: TurnContext,
  lane: Lane | undefined,
  hooks: readonly OnHistoryChangedHook[],
  afterAbort: HistoryChange[],
): OnHistoryChangedHook {
  return (change, context) => {
    if (seamsStopped(ctx, lane)) {
      afterAbort.push(change);
      return undefined;
    }
    return ctx.turnAbort.around(async () => {
      try {
        for (const hook of hooks) await step(ctx, lane, "onHistoryChanged", () => hook(change, context));
      } catch (error) {
        // The runner fails the turn and stops it, starting its abort grace: seams answer at once from here.
        ctx.turnAbort.stopSeams();
        throw error;
      }
    });
  };
}

function beforeToolCall(
  ctx: TurnContext,
  lane: Lane | undefined,
  hooks: readonly DurableBeforeToolCallHook[],
  approvalTools: ReadonlySet<string>,
  laneTools: ReadonlyMap<string, boolean>,
): BeforeToolCallHook {
  return (event, signal) => {
    if (seamsStopped(ctx, lane))
      return { block: true, reason: "The turn was aborted before this call ran.", blockedBy: "permission" };
    return ctx.turnAbort.around(async () => {
      const decision = await decide(event, signal);
      // Admitted: a call of a parallel tool or sub-agent becomes a lane, before any call of the batch runs.
      const subAgent = laneTools.get(event.toolCall.name);
      if (decision === undefined && subAgent !== undefined) await addLane(ctx, event.toolCall.id, subAgent);
      return decision;
    });
  };

  async function decide(event: ToolCallHookEvent, signal: AbortSignal): Promise<BeforeToolCallDecision> {
    let approvalReason = approvalTools.has(event.toolCall.name)
      ? `${event.toolCall.name} needs a person's approval`
      : undefined;
    for (const hook of hooks) {
      const decision = await step(ctx, lane, "beforeToolCall", () => hook(event, signal));
      if (decision && "approval" in decision) {
        approvalReason = decision.reason ?? approvalReason ?? "A hook asked for a person's approval";
        continue;
      }
      if (decision?.block) return decision;
    }
    if (approvalReason === undefined) return undefined;
    // A sub-agent turn's approval waits as a stored request, in a step of its own (see awaitChildApproval).
    return event.turnId === ctx.ref.turnId
      ? awaitApproval(ctx, event, approvalReason)
      : awaitChildApproval(ctx, lane, event, approvalReason);
  }
}

/** An `onStepEndHook` as a step whose `enqueue` calls are recorded and made again on replay. */
function stepEnd(ctx: TurnContext, lane: Lane | undefined, hook: OnStepEndHook): OnStepEndHook {
  return (event) => {
    if (seamsStopped(ctx, lane)) return undefined;
    return ctx.turnAbort.around(async () => {
      const enqueued = await step(ctx, lane, "onStepEnd", async () => {
        const queued: (string | AgentMessage)[] = [];
        await hook({ ...event, enqueue: (message) => void queued.push(message) });
        return queued;
      });
      for (const message of enqueued) event.enqueue(message);
    });
  };
}
