import { DBOS } from "@dbos-inc/dbos-sdk";
import type { RuntimeTool, RuntimeToolResult } from "@turnkit/agent-core";
import { ABANDONED, ABORT_GRACE_MS, settleOrAbandon } from "@turnkit/agent-loop/internal";
import type { Lane } from "../turn/step-lanes.js";
import {
  beginLiveStep,
  type LiveStart,
  liveSignal,
  recordAbort,
  replayLiveStart,
  seamsStopped,
  type TurnContext,
} from "../turn/turn-context.js";
import type { DurableRuntimeTool, DurableToolExecutionContext } from "./durable-tool.js";
import { type AskEvent, durableAskHost, withdrawQuestions } from "./host-ask.js";
import { runRecordedStep } from "./recorded-step.js";
import { noteStepSteering, withSteeringAtEnd } from "./steering-step.js";
import type { StepSteering } from "../store/steering-inbox.js";
import { stallIfArmed } from "../workers/fault-point.js";
import { confirmClaimBeforeEffect } from "./confirm-claim.js";

/** The text of the result an interrupted call gets when its tool may not run again. */
export const INTERRUPTED_TOOL_RESULT_TEXT =
  "This tool call was interrupted by a restart of the worker running it and was not run again: it may or may not have taken effect. Check before calling it again.";

/** The text of the result of a call the turn's abort reached before it started. */
const ABORTED_BEFORE_RUN_TEXT = "The turn was aborted before this tool call ran.";

/** The text of the result of a call that did not end within the abort grace after the turn's abort. */
const ABANDONED_AFTER_ABORT_TEXT =
  "The turn was aborted while this tool call ran, and the call did not stop within the abort grace: it may or may not have taken effect.";

/**
 * The checkpoint of one tool call. `aborted`: the turn's abort was found in
 * this step; `steering`: what the step took when it ended (none when nested).
 */
type ToolCallRecord = { start: LiveStart; steering?: StepSteering; asked?: AskEvent[] } & (
  | { kind: "result"; result: RuntimeToolResult; aborted: boolean }
  | { kind: "threw"; message: string; aborted: boolean }
  | { kind: "interrupted"; aborted: boolean }
  | { kind: "aborted" }
);

/**
 * Makes every call of `tool` a durable step. A finished call (result or
 * throw) is recorded and never runs again: a replay returns the record. A
 * call that was running when its worker died runs again only when the tool
 * declares `replay: "safe"` and the turn is not being aborted; otherwise it
 * is answered with an error result ({@link INTERRUPTED_TOOL_RESULT_TEXT}:
 * it may have taken effect), also when an abort is pending by then. A call
 * the abort reached before it ever started is answered as aborted. Attempts
 * are counted in the database before `execute` starts (keyed by the step's
 * position and the call id), which is how an interrupted call is
 * recognised; `execute` gets the same key as `ctx.idempotencyKey` on every
 * attempt.
 *
 * After the turn's abort, a call still running once the abort grace is
 * over is given up on and answered as aborted (the record says so, so a
 * replay answers the same).
 *
 * The steps of a turn must start in the same order on every replay. Calls
 * of `parallel` tools start together, in the model's order, which holds as
 * long as no per-call hook runs between admission and execution or after
 * it: with `sequential`, every call runs one at a time (the caller sets it
 * when the turn has an `onToolExecutionStartHook` or `afterToolCallHook`,
 * whose steps would otherwise interleave in completion order).
 *
 * A call of a parallel batch of the turn is a lane of its own, and the
 * calls of a parallel sub-agent call are in that call's `lane`: the step
 * waits for its lane's turn (see `StepLanes`).
 */
export function durableToolCall(
  ctx: TurnContext,
  tool: DurableRuntimeTool,
  options: { sequential: boolean; lane?: Lane },
): RuntimeTool {
  return {
    def: options.sequential ? { ...tool.def, executionMode: "sequential" } : tool.def,
    impl: {
      async execute(toolCtx, input, signal, onUpdate) {
        // The runner names calls as they start, so a replay names them in the same order.
        const callName = toolCtx.callKey ?? toolCtx.toolCallId;
        // A call of the turn's own parallel batch is a lane of its own.
        const own =
          options.lane === undefined && toolCtx.turnId === ctx.ref.turnId
            ? ctx.lanes.of(toolCtx.toolCallId)
            : undefined;
        try {
          return await callAsStep(ctx, tool, own ?? options.lane, { toolCtx, callName, input, signal, onUpdate });
        } finally {
          if (own) ctx.lanes.finish(own);
        }
      },
    },
  };
}

/** One call of `tool` as a step (see {@link durableToolCall}). */
async function callAsStep(
  ctx: TurnContext,
  tool: DurableRuntimeTool,
  lane: Lane | undefined,
  call: Omit<Parameters<typeof callLive>[2], "nested">,
): Promise<RuntimeToolResult> {
  const { toolCtx } = call;
  if (seamsStopped(ctx, lane)) return abortedBeforeRun();
  let live = false;
  const nested = DBOS.isInStep();
  const record = await ctx.lanes.step(nested ? undefined : lane, () =>
    ctx.turnAbort.around(() =>
      runRecordedStep(
        ctx,
        // The call id in the name: a replay that reached another call here fails loudly instead of taking its record.
        `turnkit.tool-call:${tool.def.name}:${toolCtx.toolCallId}`,
        async (): Promise<ToolCallRecord> => {
          live = true;
          return callLive(ctx, tool, { ...call, nested, lane });
        },
        // The step boundary's steering, in this step's checkpoint (a nested call has none of its own).
        (ran, stepId) => withSteeringAtEnd(ctx, ran, stepId),
      ),
    ),
  );
  if (!live) {
    replayLiveStart(ctx, record.start, lane);
    // What the call asked the host was logged while it ran: logged again at the same place.
    for (const event of record.asked ?? []) ctx.writer.emit(event.type, event.payload, toolCtx.turnId);
  }
  noteStepSteering(ctx, record.steering);
  if (record.kind === "aborted" || record.aborted) recordAbort(ctx, lane);
  switch (record.kind) {
    case "result":
      return record.result;
    case "threw":
      throw new Error(record.message);
    case "interrupted":
      return {
        content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
        isError: true,
        details: { interrupted: true },
      };
    case "aborted":
      return abortedBeforeRun();
    default: {
      const unreachable: never = record;
      return unreachable;
    }
  }
}

/** One call of a tool's `execute`, as the step runs it live; what the step records (without its steering). */
async function callLive(
  ctx: TurnContext,
  tool: DurableRuntimeTool,
  call: {
    nested: boolean;
    lane?: Lane;
    toolCtx: Parameters<RuntimeTool["impl"]["execute"]>[0];
    /** The call's name in request ids (`ToolExecutionContext.callKey`). */
    callName: string;
    input: unknown;
    signal: AbortSignal | undefined;
    onUpdate: Parameters<RuntimeTool["impl"]["execute"]>[3];
  },
): Promise<ToolCallRecord> {
  const { toolCtx, callName, input, signal, onUpdate } = call;
  // The claim is checked by the statement that counts the attempt, before `execute` runs.
  const start = await beginLiveStep(ctx, { nested: call.nested, claimCheckedLater: true, lane: call.lane });
  // Keyed by the step's position too: a model may reuse a call id in a later response.
  const attemptKey = `${DBOS.stepID}:${toolCtx.toolCallId}`;
  // Given up after a restart: what the call asked and still waited for is withdrawn.
  const givenUp = async (aborted: boolean): Promise<ToolCallRecord> => {
    const closed = await withdrawQuestions(ctx, { turnId: toolCtx.turnId, callName });
    return { start, kind: "interrupted", aborted, ...(closed.length > 0 && { asked: closed }) };
  };
  if (start.abortRequested) {
    // A call that started before (in an execution that died) may have taken effect: it says so.
    const earlier = await ctx.stores.turnTable.toolAttempts(ctx.ref.workflowId, attemptKey);
    return earlier > 0 ? givenUp(true) : { start, kind: "aborted" };
  }
  const attempts = await ctx.stores.turnTable.startToolAttempt(ctx.claim, attemptKey);
  if (attempts > 1 && tool.replay !== "safe") return givenUp(false);
  // Right before `execute`: a stall since the attempt was counted (another worker may have taken the turn over
  // meanwhile, and answers the call as interrupted) is found here, and the call does not run.
  await confirmClaimBeforeEffect(ctx, "tool-call-before-run");
  const callSignal = liveSignal(ctx, signal);
  const logged: AskEvent[] = [];
  const asked = () => (logged.length > 0 ? { asked: logged } : {});
  const callCtx: DurableToolExecutionContext = Object.freeze({
    ...toolCtx,
    idempotencyKey: `${ctx.ref.workflowId}/${attemptKey}`,
    askHost: durableAskHost(
      ctx,
      {
        turnId: toolCtx.turnId,
        toolCallId: toolCtx.toolCallId,
        callName,
        assistantMessageId: toolCtx.assistantMessageId,
        callSignal,
      },
      logged,
    ),
  });
  stallIfArmed("tool-call-after-claim-check", ctx.faultPoint);
  try {
    const work = Promise.resolve(tool.impl.execute(callCtx, input as never, callSignal, onUpdate));
    const result = await settleOrAbandon(work, ctx.liveAbort.signal, ABORT_GRACE_MS);
    if (result === ABANDONED)
      return { start, kind: "result", result: abandonedAfterAbort(), aborted: true, ...asked() };
    return { start, kind: "result", result, aborted: ctx.liveAbort.signal.aborted, ...asked() };
  } catch (error) {
    return {
      start,
      kind: "threw",
      message: error instanceof Error ? error.message : String(error),
      aborted: ctx.liveAbort.signal.aborted,
      ...asked(),
    };
  }
}

function abortedBeforeRun(): RuntimeToolResult {
  return { content: [{ type: "text", text: ABORTED_BEFORE_RUN_TEXT }], isError: true };
}

function abandonedAfterAbort(): RuntimeToolResult {
  return { content: [{ type: "text", text: ABANDONED_AFTER_ABORT_TEXT }], isError: true, details: { abandoned: true } };
}
