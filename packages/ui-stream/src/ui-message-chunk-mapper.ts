import {
  type DebugTracePayload,
  type MessagePersistedPayload,
  type ProtocolStopReason,
  type RuntimeEvent,
  type SessionStatusPayload,
  type StreamRespPayload,
  type StreamToolCallChunk,
  validateRuntimeEvent,
} from "@turnkit/protocol";
import type { FinishReason, ProviderMetadata } from "ai";
import { approvalAnswerChunk, askedApprovalEndChunk } from "./approval-answers.js";
import { contentText } from "./content-text.js";
import { QuestionParts } from "./question-parts.js";
import { SubAgentParts } from "./sub-agent-parts.js";
import { resultText, toolOutput } from "./tool-output.js";
import { ACTION_REQUEST_TRACE_PHASE, APPROVAL_TRACE_PHASE, RESUME_TRACE_PHASE } from "./defaults.js";
import { UIStreamError, UIStreamErrorCode } from "./errors.js";
import type { TurnkitMessageMetadata, TurnkitUIMessageChunk } from "./turnkit-ui-message.js";
import { assertOptionsObject } from "./argument-checks.js";

/** Options of {@link UIMessageChunkMapper}. */
export interface UIMessageChunkMapperOptions {
  /** The id of the assistant UI message the turn becomes. Default: the turn id. Keep it stable across replays. */
  messageId?: string;
}

/** What the mapper remembers of one tool call. */
interface ToolCallState {
  toolName: string;
  messageId: string;
  inputAvailable: boolean;
  /** The approval request of the call that was answered other than yes (denied, timed out, the turn aborted). */
  refusedApproval?: string;
}

const FINISH_REASONS: Record<ProtocolStopReason, FinishReason> = {
  stop: "stop",
  length: "length",
  toolUse: "tool-calls",
  error: "error",
  aborted: "other",
};

/**
 * Turns one turn's `RuntimeEvent`s, fed in `seq` order from its first
 * event, into the chunks of the AI SDK UI message stream (ai 6): the turn
 * is one assistant message, each model request one step.
 *
 * - `stream.resp` text and thinking deltas become text and reasoning parts
 *   (a new part whenever the kind changes); a tool call becomes a tool part
 *   (`tool-<name>`) with its input, then its output, its error, or
 *   `output-denied` when its approval was not granted; the `finish` chunk
 *   ends the step and reports the turn's usage so far as message metadata.
 * - `action.required` becomes a `tool-approval-request` whose `approvalId`
 *   is the request id to answer (`respond` of `@turnkit/agent-durable`);
 *   its answer, which the stream has no chunk for, a `data-turnkit-approval`
 *   part (when not granted, just before `output-denied`, with the call's
 *   result text as the reason; see `withApprovalAnswers`).
 * - `runtime.warning`, steered user messages and, after a crash, the ids
 *   of the superseded attempt become `data-turnkit-…` parts.
 * - The terminal status ends the message: `finish` (completed), the final
 *   metadata then `error` then `finish` (failed: `useChat` stops reading
 *   at `error`, so the metadata comes first), or the metadata then `abort`
 *   (aborted), with the final usage.
 *
 * The mapping is a pure function of the events: the same events give the
 * same chunks, so a replay (or a resume after a `seq`, which maps and
 * drops the earlier events) continues a stream exactly. Every part carries
 * its Turnkit message id in `providerMetadata.turnkit`.
 *
 * `map` throws `UIStreamError` `invalid_events` for what `validateRuntimeEvent`
 * refuses (naming the paths), when the first event is not the turn's
 * `running` status or one follows the terminal one, and `out_of_order` when
 * a `seq` does not increase or an event belongs to another turn. The
 * constructor throws a `TypeError` for `options` that are no object.
 */
export class UIMessageChunkMapper {
  private readonly messageId: string | undefined;
  private turn: { sessionId: string; turnId: string } | undefined;
  private lastSeq = Number.NEGATIVE_INFINITY;
  private started = false;
  private ended = false;
  private step: string | undefined;
  private part: { kind: "text" | "reasoning"; id: string } | undefined;
  private readonly partCounts = new Map<string, number>();
  private readonly messageFirstSeq = new Map<string, number>();
  private readonly tools = new Map<string, ToolCallState>();
  private readonly approvals = new Map<string, string>();
  private readonly questions = new QuestionParts();
  private readonly subAgents = new SubAgentParts();
  private steps = 0;
  private lastStopReason: ProtocolStopReason | undefined;

  constructor(options: UIMessageChunkMapperOptions = {}) {
    assertOptionsObject("UIMessageChunkMapper", "options", options);
    this.messageId = options.messageId;
  }

  /** The chunks `event` adds to the stream, in order (often none, for a trace). */
  map(event: RuntimeEvent): TurnkitUIMessageChunk[] {
    this.checkOrder(event);
    const out: TurnkitUIMessageChunk[] = [];
    // A sub-agent's event is not the turn's: its status, text and tools are shown under its call.
    if (event.origin) return this.subAgents.map(event);
    switch (event.type) {
      case "session.status":
        this.onStatus(event.payload, out);
        break;
      case "stream.resp":
        this.onStream(event.seq, event.payload, out);
        break;
      case "action.required": {
        if (event.payload.kind === "elicitation") {
          out.push(this.questions.asked(event.payload));
          break;
        }
        const { requestId, toolCallId, toolName, arguments: input, messageId } = event.payload;
        this.announceTool(toolCallId, toolName, messageId ?? this.step ?? event.turnId, input, out);
        this.approvals.set(requestId, toolCallId);
        out.push({ type: "tool-approval-request", approvalId: requestId, toolCallId });
        break;
      }
      case "runtime.warning":
        out.push({ type: "data-turnkit-warning", id: `warning-${event.seq}`, data: event.payload });
        break;
      case "message.persisted":
        this.onPersisted(event.seq, event.payload, out);
        break;
      case "debug.trace":
        this.onTrace(event.seq, event.payload, out);
        break;
      default: {
        const unknown: never = event;
        throw invalidEvents(`unknown event type ${JSON.stringify((unknown as { type?: unknown }).type)}`);
      }
    }
    return out;
  }

  private checkOrder(event: RuntimeEvent): void {
    const checked = validateRuntimeEvent(event);
    if (!checked.ok) throw invalidEvents(`an event must be a RuntimeEvent: ${checked.errors.slice(0, 3).join("; ")}`);
    if (this.ended) throw invalidEvents(`event seq ${event.seq} follows the turn's terminal status`);
    if (this.turn === undefined) {
      if (event.type !== "session.status" || event.payload.status !== "running")
        throw invalidEvents(
          `the events must start with the turn's first event (session.status running), got ${event.type} seq ${event.seq}`,
        );
      this.turn = { sessionId: event.sessionId, turnId: event.turnId };
    } else if (event.turnId !== this.turn.turnId || event.sessionId !== this.turn.sessionId) {
      throw new UIStreamError({
        code: UIStreamErrorCode.OutOfOrder,
        message: `event seq ${event.seq} belongs to turn ${event.turnId}, not ${this.turn.turnId}`,
      });
    }
    if (!(event.seq > this.lastSeq))
      throw new UIStreamError({
        code: UIStreamErrorCode.OutOfOrder,
        message: `event seq ${event.seq} does not follow seq ${this.lastSeq}`,
      });
    this.lastSeq = event.seq;
  }

  private onStatus(payload: SessionStatusPayload, out: TurnkitUIMessageChunk[]): void {
    const turn = this.turn!;
    if (payload.status === "running") {
      if (!this.started) {
        this.started = true;
        out.push({
          type: "start",
          messageId: this.messageId ?? turn.turnId,
          messageMetadata: { ...turn, status: "running" },
        });
      }
      return;
    }
    this.endStep(out);
    this.ended = true;
    const metadata: TurnkitMessageMetadata = {
      ...turn,
      status: payload.status,
      steps: this.steps,
      ...(payload.usage && { usage: payload.usage.total }),
      ...(payload.status === "failed" && { error: payload.error }),
    };
    if (payload.status === "aborted") {
      out.push({ type: "message-metadata", messageMetadata: metadata });
      out.push({ type: "abort", reason: "the turn was aborted" });
      return;
    }
    if (payload.status === "failed") {
      // useChat stops reading at the `error` chunk: the final metadata goes before it, or the page keeps "running".
      out.push({ type: "message-metadata", messageMetadata: metadata });
      out.push({ type: "error", errorText: `${payload.error.code}: ${payload.error.message}` });
      out.push({ type: "finish", finishReason: "error", messageMetadata: metadata });
      return;
    }
    const finishReason = this.lastStopReason === undefined ? "stop" : FINISH_REASONS[this.lastStopReason];
    out.push({ type: "finish", finishReason, messageMetadata: metadata });
  }

  private onStream(seq: number, payload: StreamRespPayload, out: TurnkitUIMessageChunk[]): void {
    const { messageId, chunk } = payload;
    if (this.step !== messageId) {
      this.endStep(out);
      out.push({ type: "start-step" });
      this.step = messageId;
      if (!this.messageFirstSeq.has(messageId)) this.messageFirstSeq.set(messageId, seq);
    }
    switch (chunk.kind) {
      case "text":
      case "thinking": {
        const kind = chunk.kind === "text" ? "text" : "reasoning";
        if (this.part?.kind !== kind) {
          this.endPart(out);
          const index = this.partCounts.get(messageId) ?? 0;
          this.partCounts.set(messageId, index + 1);
          this.part = { kind, id: `${messageId}:${index}` };
          out.push({ type: `${kind}-start`, id: this.part.id, providerMetadata: origin(messageId) });
        }
        out.push({ type: `${kind}-delta`, id: this.part.id, delta: chunk.delta });
        break;
      }
      case "tool_call":
        this.endPart(out);
        this.onToolCall(messageId, chunk, out);
        break;
      case "finish":
        this.lastStopReason = chunk.reason;
        this.endStep(out);
        this.steps += 1;
        out.push({
          type: "message-metadata",
          messageMetadata: {
            ...this.turn!,
            status: "running",
            steps: this.steps,
            ...(chunk.step && { usage: chunk.step.turnUsage.total }),
          },
        });
        break;
    }
  }

  private onToolCall(messageId: string, chunk: StreamToolCallChunk, out: TurnkitUIMessageChunk[]): void {
    const { toolCallId, toolName, status } = chunk;
    const known = status === "preparing" ? chunk.arguments : (chunk.arguments ?? {});
    this.announceTool(toolCallId, toolName, messageId, known, out);
    const tool = this.tools.get(toolCallId)!;
    if (status === "finished") {
      out.push({ type: "tool-output-available", toolCallId, output: toolOutput(chunk.result) });
    } else if (status === "failed") {
      const reason = resultText(chunk.result);
      if (tool.refusedApproval !== undefined) {
        out.push(approvalAnswerChunk(tool.refusedApproval, toolCallId, false, reason || undefined));
        out.push({ type: "tool-output-denied", toolCallId });
      } else out.push({ type: "tool-output-error", toolCallId, errorText: reason || "the call failed" });
    }
  }

  /** Opens the call's tool part the first time it is seen, and gives it its input once the input is known. */
  private announceTool(
    toolCallId: string,
    toolName: string,
    messageId: string,
    input: Record<string, unknown> | undefined,
    out: TurnkitUIMessageChunk[],
  ): void {
    let tool = this.tools.get(toolCallId);
    if (!tool) {
      tool = { toolName, messageId, inputAvailable: false };
      this.tools.set(toolCallId, tool);
      out.push({ type: "tool-input-start", toolCallId, toolName, providerMetadata: origin(messageId) });
    }
    if (!tool.inputAvailable && input !== undefined) {
      tool.inputAvailable = true;
      out.push({ type: "tool-input-available", toolCallId, toolName, input, providerMetadata: origin(messageId) });
    }
  }

  private onPersisted(seq: number, payload: MessagePersistedPayload, out: TurnkitUIMessageChunk[]): void {
    // The turn's own prompt is persisted before the first model request; a user message after it was steered in.
    if (this.messageFirstSeq.size === 0) return;
    // A replaced history (a compaction) holds earlier messages, the prompt among them: none of them is new.
    if (payload.reason !== "messageDelta") return;
    payload.messages.forEach((message, index) => {
      if (message.role !== "user") return;
      const content = (message as { content?: unknown }).content;
      out.push({ type: "data-turnkit-steering", id: `steering-${seq}-${index}`, data: { text: contentText(content) } });
    });
  }

  private onTrace(seq: number, payload: DebugTracePayload, out: TurnkitUIMessageChunk[]): void {
    const attrs = payload.attrs ?? {};
    // How an approval ended: before the call ran (a durable turn's), or asked by the running tool itself.
    const requestId = String(attrs.requestId);
    const toolCallId = this.approvals.get(requestId);
    const tool = toolCallId === undefined ? undefined : this.tools.get(toolCallId);
    if (tool && toolCallId !== undefined) {
      if (payload.phase === APPROVAL_TRACE_PHASE) {
        if (attrs.result === "approved") out.push(approvalAnswerChunk(requestId, toolCallId, true));
        else tool.refusedApproval = requestId;
      } else if (payload.phase === ACTION_REQUEST_TRACE_PHASE && attrs.kind === "tool_approval")
        out.push(askedApprovalEndChunk(requestId, toolCallId, String(attrs.outcome)));
    }
    if (payload.phase === ACTION_REQUEST_TRACE_PHASE && attrs.kind === "elicitation")
      out.push(...this.questions.ended(requestId, String(attrs.outcome)));
    if (payload.phase === RESUME_TRACE_PHASE) {
      const fromSeq = Number(attrs.supersededFromSeq);
      const toSeq = Number(attrs.supersededToSeq);
      if (!Number.isFinite(fromSeq) || !Number.isFinite(toSeq)) return;
      this.endStep(out);
      const messageIds = [...this.messageFirstSeq]
        .filter(([, first]) => first >= fromSeq && first <= toSeq)
        .map(([id]) => id);
      // The attempt sent again may call the same tools under the same ids: they get new parts.
      for (const [toolCallId, tool] of this.tools)
        if (messageIds.includes(tool.messageId)) this.tools.delete(toolCallId);
      out.push({ type: "data-turnkit-superseded", id: `superseded-${seq}`, data: { fromSeq, toSeq, messageIds } });
    }
  }

  private endPart(out: TurnkitUIMessageChunk[]): void {
    if (!this.part) return;
    out.push({ type: `${this.part.kind}-end`, id: this.part.id });
    this.part = undefined;
  }

  private endStep(out: TurnkitUIMessageChunk[]): void {
    this.endPart(out);
    if (this.step === undefined) return;
    out.push({ type: "finish-step" });
    this.step = undefined;
  }
}

function origin(messageId: string): ProviderMetadata {
  return { turnkit: { messageId } };
}

/** The `invalid_events` error with `message`. */
function invalidEvents(message: string): UIStreamError {
  return new UIStreamError({ code: UIStreamErrorCode.InvalidEvents, message });
}
