import { DBOS } from "@dbos-inc/dbos-sdk";
import type { ActionRequestOutcome, BeforeToolCallDecision, ToolCallHookEvent } from "@turnkit/agent-core";
import { describeValue } from "@turnkit/agent-loop/internal";
import type { ActionRequiredPayload } from "@turnkit/protocol";
import { APPROVAL_TOPIC } from "../defaults.js";
import { invalidInput } from "../errors.js";
import type { Lane } from "../turn/step-lanes.js";
import {
  beginLiveStep,
  type LiveStart,
  liveSignal,
  recordAbort,
  replayLiveStart,
  type TurnContext,
} from "../turn/turn-context.js";
import { stallOnceIfArmed } from "../workers/fault-point.js";
import { dbosRecordedCall } from "./dbos-recorded-call.js";
import { type AskEvent, requestScopeOf, waitDurably } from "./host-ask.js";
import { runRecordedStep } from "./recorded-step.js";

/** A person's answer to an approval request. */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/** What travels on the approval topic: an answer to one request, or the notice that the turn is aborted. */
export type ApprovalMessage = { kind: "decision"; requestId: string; decision: ApprovalDecision } | { kind: "abort" };

/** The notice that ends a turn's approval wait when the turn is aborted. */
export const ABORT_NOTICE: ApprovalMessage = { kind: "abort" };

/**
 * The idempotency key of a turn's abort notice: every sender (the client
 * that asks for the abort, a worker that finds the abort requested) uses
 * it, so the turn's topic holds one notice however many sent it.
 */
export function abortNoticeKey(workflowId: string): string {
  return `${workflowId}/abort`;
}

/**
 * The request id of the approval for one tool call, unique within its turn
 * and the same on every replay. `scope` tells sub-agents apart: the tool
 * call ids of the sub-agent calls the call's turn runs under, each followed
 * by `/` (`"call_2/"`); `""` (the default) for a call of the host's turn.
 * A model that reuses a call id in a later response of the turn has its
 * k-th call under that id asked as `<toolCallId>#<k>` (`approval:call_0#2`).
 * Throws `DurableTurnError` (`invalid_input`) when either is no string.
 */
export function approvalRequestId(toolCallId: string, scope = ""): string {
  if (typeof toolCallId !== "string")
    throw invalidInput(`approvalRequestId: toolCallId must be a string, got ${describeValue(toolCallId)}`);
  if (typeof scope !== "string")
    throw invalidInput(`approvalRequestId: scope must be a string, got ${describeValue(scope)}`);
  return `approval:${scope}${toolCallId}`;
}

/**
 * Asks a person about one tool call and waits durably for the answer: logs
 * an `action.required` event, then waits on the turn's approval topic (a
 * DBOS `recv` whose deadline survives restarts; no process is held while
 * the worker is down, and the wait resumes wherever the turn is recovered).
 *
 * Approved: the call runs. Denied: it is blocked with the person's reason.
 * No answer by the deadline: blocked as timed out. An abort notice: the
 * turn's signal fires and the call is blocked. Answers to other requests
 * are skipped. Every outcome is logged as a `debug.trace` `durable.approval` event.
 */
export async function awaitApproval(
  ctx: TurnContext,
  event: ToolCallHookEvent,
  reason: string,
): Promise<BeforeToolCallDecision> {
  const request = approvalRequest(ctx, event, reason);
  const { requestId } = request;
  ctx.writer.emit("action.required", request, event.turnId);
  // DBOS records both calls as steps of its own: the claim holds only while their rows are kept.
  const deadlineEpochMS = (await dbosRecordedCall(ctx.claim, () => DBOS.now())) + ctx.approvalTimeoutMs;
  for (;;) {
    const message = await dbosRecordedCall(ctx.claim, () =>
      DBOS.recv<ApprovalMessage>(APPROVAL_TOPIC, { deadlineEpochMS }),
    );
    stallOnceIfArmed("approval-received", ctx.faultPoint);
    if (message === null) {
      trace(ctx, event.turnId, requestId, "timed out");
      return {
        block: true,
        reason: `Nobody approved this call within ${ctx.approvalTimeoutMs} ms; it was not run.`,
        blockedBy: "permission",
      };
    }
    if (message.kind === "abort") {
      trace(ctx, event.turnId, requestId, "aborted");
      ctx.turnAbort.record();
      return {
        block: true,
        reason: "The turn was aborted while this call waited for approval.",
        blockedBy: "permission",
      };
    }
    if (message.requestId !== requestId) continue;
    const { decision } = message;
    trace(ctx, event.turnId, requestId, decision.approved ? "approved" : "denied");
    if (decision.approved) return undefined;
    return { block: true, reason: decision.reason ?? "A person denied this call.", blockedBy: "permission" };
  }
}

function trace(ctx: TurnContext, turnId: string, requestId: string, result: string): void {
  ctx.writer.emit(
    "debug.trace",
    { phase: "durable.approval", level: "info", message: `approval ${result}`, attrs: { requestId, result } },
    turnId,
  );
}

/** The `action.required` payload of the approval of one tool call of the turn or of one of its sub-agent turns. */
function approvalRequest(ctx: TurnContext, event: ToolCallHookEvent, reason: string): ActionRequiredPayload {
  const scope = requestScopeOf(ctx, event.turnId);
  return {
    requestId: approvalRequestId(ctx.approvalNames(event.toolCall.id, scope), scope),
    kind: "tool_approval",
    toolCallId: event.toolCall.id,
    toolName: event.toolCall.name,
    arguments: event.toolCall.arguments,
    ...(event.assistantMessageId !== undefined && { messageId: event.assistantMessageId }),
    reason,
    timeoutMs: ctx.approvalTimeoutMs,
  };
}

/** The checkpoint of a sub-agent's approval wait: how it ended, what it logged, whether the turn was aborted. */
interface ChildApprovalRecord {
  start: LiveStart;
  outcome: ActionRequestOutcome;
  asked: AskEvent[];
  aborted: boolean;
}

/**
 * Asks a person about one tool call of a sub-agent turn and waits in a
 * step of its own (in `lane`, when the sub-agent call is a parallel one):
 * the request is stored in Postgres before its `action.required` is
 * logged and answered with `respond` from any process, as a tool's
 * question is (see `durableAskHost`), so sub-agent calls running at once
 * never wait on one DBOS topic. The outcomes are those of
 * {@link awaitApproval}; the wait closes with an `action.request` trace.
 * A step interrupted by a crash waits again under the same request id,
 * without logging it twice, until the deadline set when it first asked.
 * The turn's abort ends the wait (the record says so).
 */
export async function awaitChildApproval(
  ctx: TurnContext,
  lane: Lane | undefined,
  event: ToolCallHookEvent,
  reason: string,
): Promise<BeforeToolCallDecision> {
  const request = approvalRequest(ctx, event, reason);
  let live = false;
  const record = await ctx.lanes.step(lane, () =>
    runRecordedStep(ctx, `turnkit.approval:${request.requestId}`, async (): Promise<ChildApprovalRecord> => {
      live = true;
      const start = await beginLiveStep(ctx, { nested: false, claimCheckedLater: true, lane });
      const asked: AskEvent[] = [];
      const outcome = start.abortRequested
        ? { kind: "aborted" as const, requestId: request.requestId }
        : await waitDurably(ctx, event.turnId, request, liveSignal(ctx, undefined), asked);
      return { start, outcome, asked, aborted: ctx.liveAbort.signal.aborted };
    }),
  );
  if (!live) {
    replayLiveStart(ctx, record.start, lane);
    for (const logged of record.asked) ctx.writer.emit(logged.type, logged.payload, event.turnId);
  }
  const { outcome } = record;
  if (record.aborted || outcome.kind === "aborted") recordAbort(ctx, lane);
  switch (outcome.kind) {
    case "answered": {
      const answer = outcome.answer as ApprovalDecision;
      if (answer.approved) return undefined;
      return { block: true, reason: answer.reason ?? "A person denied this call.", blockedBy: "permission" };
    }
    case "timed_out":
      return {
        block: true,
        reason: `Nobody approved this call within ${ctx.approvalTimeoutMs} ms; it was not run.`,
        blockedBy: "permission",
      };
    case "aborted":
      return {
        block: true,
        reason: "The turn was aborted while this call waited for approval.",
        blockedBy: "permission",
      };
    case "refused":
      return { block: true, reason: outcome.reason, blockedBy: "permission" };
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}
