import { DBOS } from "@dbos-inc/dbos-sdk";
import type { BeforeToolCallDecision, ToolCallHookEvent } from "@turnkit/agent-core";
import { APPROVAL_TOPIC } from "../defaults.js";
import type { TurnContext } from "../turn/turn-context.js";
import { requestScopeOf } from "./host-ask.js";

/** A person's answer to an approval request. */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/** What travels on the approval topic: an answer to one request, or the notice that the turn is aborted. */
export type ApprovalMessage = { kind: "decision"; requestId: string; decision: ApprovalDecision } | { kind: "abort" };

/**
 * The request id of the approval for one tool call, unique within its turn
 * and the same on every replay. `scope` tells sub-agents apart: the tool
 * call ids of the sub-agent calls the call's turn runs under, each followed
 * by `/` (`"call_2/"`); `""` (the default) for a call of the host's turn.
 * A model that reuses a call id in a later response of the turn has its
 * k-th call under that id asked as `<toolCallId>#<k>` (`approval:call_0#2`).
 */
export function approvalRequestId(toolCallId: string, scope = ""): string {
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
  const scope = requestScopeOf(ctx, event.turnId);
  const requestId = approvalRequestId(ctx.callNames.approvals(event.toolCall.id, scope), scope);
  ctx.writer.emit(
    "action.required",
    {
      requestId,
      kind: "tool_approval",
      toolCallId: event.toolCall.id,
      toolName: event.toolCall.name,
      arguments: event.toolCall.arguments,
      ...(event.assistantMessageId !== undefined && { messageId: event.assistantMessageId }),
      reason,
      timeoutMs: ctx.approvalTimeoutMs,
    },
    event.turnId,
  );
  const deadlineEpochMS = (await DBOS.now()) + ctx.approvalTimeoutMs;
  for (;;) {
    const message = await DBOS.recv<ApprovalMessage>(APPROVAL_TOPIC, { deadlineEpochMS });
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
