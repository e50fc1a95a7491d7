import type { UIMessage } from "ai";
import type { TurnkitApprovalAnswer, TurnkitUIMessageChunk } from "./turnkit-ui-message.js";
import { readOr, shownType } from "./argument-checks.js";

interface ApprovalPart {
  toolCallId: string;
  state: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/**
 * `message` with each `data-turnkit-approval` answer put on its call's
 * tool part: `approval.approved` (and `approval.reason` when it was not
 * granted), and a part still `approval-requested` becomes
 * `approval-responded`. An approval the running tool asked itself is over
 * once its wait ended: the part is the running call again (no `approval`,
 * `input-available` until its output), since the AI SDK knows approvals
 * only before a call runs and refuses an output after a no. The AI SDK's stream has no chunk for an answer, so
 * its reader leaves `approval` without one; a page that did not answer
 * itself (another tab, a reload, a resumed stream) would hold a part that
 * the AI SDK's `validateUIMessages` refuses (an `output-available` or
 * `output-denied` part must say how it was answered). Apply it to what a
 * page shows and sends back; `readTurnUIMessage` applies it already.
 * Returns `message` itself when nothing changes; never changes it. Throws
 * a `TypeError` for a `message` without a `parts` list.
 */
export function withApprovalAnswers<M extends UIMessage>(message: M): M {
  if (!readOr(() => Array.isArray((message as { parts?: unknown } | null)?.parts), false)) {
    throw new TypeError(
      `withApprovalAnswers: message must be a UIMessage with a parts array, got ${message === null ? "null" : typeof message === "object" ? (shownType(message) === "an unreadable value" ? "an unreadable value" : "an object without parts") : typeof message}`,
    );
  }
  const answers = new Map<string, TurnkitApprovalAnswer>();
  for (const part of message.parts) {
    if (part.type !== "data-turnkit-approval") continue;
    const answer = (part as { data: TurnkitApprovalAnswer }).data;
    answers.set(answer.toolCallId, answer);
  }
  if (answers.size === 0) return message;
  let changed = false;
  const parts = message.parts.map((part) => {
    const tool = part as unknown as ApprovalPart;
    const answer = typeof tool.toolCallId === "string" ? answers.get(tool.toolCallId) : undefined;
    if (!answer || tool.approval?.id !== answer.approvalId) return part;
    if ("askedByTool" in answer) {
      changed = true;
      const { approval: _over, ...call } = part as typeof part & { approval?: unknown };
      const waiting = tool.state === "approval-requested" || tool.state === "approval-responded";
      return { ...call, state: waiting ? "input-available" : tool.state } as typeof part;
    }
    const reason = answer.approved ? undefined : answer.reason;
    if (tool.approval.approved === answer.approved && tool.approval.reason === reason) return part;
    changed = true;
    return {
      ...part,
      state: tool.state === "approval-requested" ? "approval-responded" : tool.state,
      approval: { ...tool.approval, approved: answer.approved, ...(reason !== undefined && { reason }) },
    } as typeof part;
  });
  return changed ? { ...message, parts } : message;
}

/** The `data-turnkit-approval` chunk of an answer (one per request: a later one replaces it in the message). */
export function approvalAnswerChunk(
  approvalId: string,
  toolCallId: string,
  approved: boolean,
  reason?: string,
): TurnkitUIMessageChunk {
  return {
    type: "data-turnkit-approval",
    id: `answer-${approvalId}`,
    data: { approvalId, toolCallId, approved, ...(reason !== undefined && { reason }) },
  };
}

/** The `data-turnkit-approval` chunk saying that an approval a running tool asked itself is over (`outcome`). */
export function askedApprovalEndChunk(approvalId: string, toolCallId: string, outcome: string): TurnkitUIMessageChunk {
  return {
    type: "data-turnkit-approval",
    id: `answer-${approvalId}`,
    data: { approvalId, toolCallId, askedByTool: true, outcome },
  };
}
