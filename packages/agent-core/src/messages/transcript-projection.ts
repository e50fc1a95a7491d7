import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { MAX_IMAGES_PER_REQUEST } from "../defaults.js";
import { hasImage, limitImages, userContentOf } from "./image-limits.js";
import { isDroppedResponse } from "./turn-messages.js";

/** Told how many images a projection left out. An object rather than a callback, so a runner passes its turn's watch as it is. */
export interface ImagesOmittedListener {
  imagesOmitted(count: number): void;
}

/** Options of {@link TranscriptProjection}. */
export interface TranscriptProjectionOptions {
  /** Most images kept in one request; older ones become a text placeholder. Default 20. */
  maxImages?: number;
  /** Told how many images a projection replaced by a placeholder (too small or past `maxImages`), when there were any. Errors are ignored. */
  imagesOmittedListener?: ImagesOmittedListener;
  /**
   * `true` (the default) when code outside the loop (hooks, the host) may
   * change a message in place between two projections: every message is
   * then looked at again on every call, and only its projected copy is
   * reused when none of its fields changed. `false` when messages, once
   * in the transcript, are only ever replaced: a call then projects only
   * the messages appended since the last one.
   */
  messagesMayChangeInPlace?: boolean;
}

/**
 * `projectAgentMessagesForModel` for a transcript that grows between
 * requests: each message is projected once and its projection reused while
 * the message is unchanged, so a request costs what is new since the last
 * one plus one copy of the result, not a rebuild of the whole transcript.
 *
 * Every call returns what `projectAgentMessagesForModel` returns for the same
 * messages: a fresh array (the caller may change it), whose messages are
 * shared with earlier results and must be treated as read-only. A call
 * whose messages do not start with those of the previous call (same
 * objects, same order: a compaction, a replaced request) starts over. Never
 * mutates its input.
 */
export class TranscriptProjection {
  private readonly maxImages: number;
  private readonly imagesOmittedListener: ImagesOmittedListener | undefined;
  private readonly mayChangeInPlace: boolean;
  /**
   * The messages projected so far, in order, by identity, each followed by
   * its projected copy (`undefined`: dropped or merged into the one
   * before). One list rather than two: many turns at once each hold one.
   */
  private seen: (AgentMessage | Message | undefined)[] = [];
  /** The projection of `seen` before image limits. */
  private projected: Message[] = [];
  /** Indexes in `projected` of the messages holding an image, ascending; none before the first image. */
  private withImages: number[] | undefined = undefined;
  private lastBatchId: string | undefined;

  constructor(options: TranscriptProjectionOptions = {}) {
    this.maxImages = options.maxImages ?? MAX_IMAGES_PER_REQUEST;
    this.imagesOmittedListener = options.imagesOmittedListener;
    this.mayChangeInPlace = options.messagesMayChangeInPlace ?? true;
  }

  /** The provider-ready messages of `messages` (see `projectAgentMessagesForModel`). */
  project(messages: readonly AgentMessage[]): Message[] {
    const previousSeen = this.seen;
    if (this.mayChangeInPlace || !this.continues(messages)) this.startOver();
    const from = this.seen.length / 2;
    for (let index = from; index < messages.length; index++) {
      const message = messages[index]!;
      // The copy made for this very message at this place last time is reused when its fields still match.
      const reusable = previousSeen[2 * index] === message ? (previousSeen[2 * index + 1] as Message | undefined) : undefined;
      const copy = this.append(message, reusable);
      this.seen.push(message, copy);
    }
    // The caller gets a copy, which dies with its request; the projection's own list lives as long as the
    // transcript and grows in place (a copy kept instead would outlive young-generation collections each step).
    if (this.withImages === undefined) return this.projected.slice();
    const omitted = { count: 0 };
    const limited = limitImages(this.projected.slice(), this.withImages, this.maxImages, omitted);
    if (omitted.count > 0) {
      try {
        this.imagesOmittedListener?.imagesOmitted(omitted.count);
      } catch {
        // An observer; the projection stands.
      }
    }
    return limited;
  }

  /** Whether `messages` begins with every message projected so far, in order. */
  private continues(messages: readonly AgentMessage[]): boolean {
    const seen = this.seen;
    const count = seen.length / 2;
    if (messages.length < count) return false;
    for (let index = 0; index < count; index++) if (messages[index] !== seen[2 * index]) return false;
    return true;
  }

  private startOver(): void {
    this.seen = [];
    this.projected = [];
    this.withImages = undefined;
    this.lastBatchId = undefined;
  }

  /** Projects one more message onto the end; returns its copy, `undefined` when it was dropped or merged. */
  private append(message: AgentMessage, reusable: Message | undefined): Message | undefined {
    switch (message.role) {
      case "user":
      case "hidden": {
        const batchId = message.role === "user" ? (message as { batchId?: string }).batchId : undefined;
        const previous = this.projected[this.projected.length - 1];
        const merge = batchId !== undefined && batchId === this.lastBatchId && previous?.role === "user";
        this.lastBatchId = batchId;
        if (merge) {
          const merged: UserMessage = { ...previous, content: [...userContentOf(previous.content), ...userContentOf(message.content)] };
          this.replaceLast(merged);
          return undefined;
        }
        const copy = reusable?.role === "user" && sameUser(reusable, message) ? reusable : userCopy(message);
        this.push(copy);
        return copy;
      }
      case "assistant": {
        this.lastBatchId = undefined;
        if (message.stopReason === "error" || message.stopReason === "aborted" || isDroppedResponse(message)) return undefined;
        const copy = reusable?.role === "assistant" && sameAssistant(reusable, message) ? reusable : assistantCopy(message);
        this.push(copy);
        return copy;
      }
      case "toolResult": {
        this.lastBatchId = undefined;
        if (!this.knowsCall(message.toolCallId)) return undefined;
        const copy = reusable?.role === "toolResult" && sameToolResult(reusable, message) ? reusable : toolResultCopy(message);
        this.push(copy);
        return copy;
      }
      default:
        // Host-only and unknown custom messages never reach a model.
        return undefined;
    }
  }

  /**
   * Whether an assistant message projected so far made the call
   * `toolCallId`. Looks from the newest message back, where a result's call
   * almost always is (a set of every call id would cost each turn a table).
   */
  private knowsCall(toolCallId: string): boolean {
    for (let index = this.projected.length - 1; index >= 0; index--) {
      const message = this.projected[index]!;
      if (message.role !== "assistant") continue;
      for (const block of message.content) if (block.type === "toolCall" && block.id === toolCallId) return true;
    }
    return false;
  }

  private push(message: Message): void {
    if (hasImage(message)) (this.withImages ??= []).push(this.projected.length);
    this.projected.push(message);
  }

  private replaceLast(message: Message): void {
    const last = this.projected.length - 1;
    this.projected[last] = message;
    if (hasImage(message) && this.withImages?.[this.withImages.length - 1] !== last) (this.withImages ??= []).push(last);
  }
}

/** A user or hidden message as the model's user message, host fields left out. */
function userCopy(message: AgentMessage & { role: "user" | "hidden" }): UserMessage {
  return { role: "user", content: message.content, timestamp: message.timestamp };
}

function sameUser(copy: UserMessage, message: AgentMessage & { role: "user" | "hidden" }): boolean {
  return copy.content === message.content && copy.timestamp === message.timestamp;
}

/** An assistant message with pi-ai's fields only. */
function assistantCopy(message: AssistantMessage): AssistantMessage {
  const { role, content, api, provider, model, usage, stopReason, timestamp, responseId, responseModel, diagnostics, errorMessage } = message;
  const clean: AssistantMessage = { role, content, api, provider, model, usage, stopReason, timestamp };
  if (responseId !== undefined) clean.responseId = responseId;
  if (responseModel !== undefined) clean.responseModel = responseModel;
  if (diagnostics !== undefined) clean.diagnostics = diagnostics;
  if (errorMessage !== undefined) clean.errorMessage = errorMessage;
  return clean;
}

function sameAssistant(copy: AssistantMessage, message: AssistantMessage): boolean {
  return (
    copy.content === message.content &&
    copy.stopReason === message.stopReason &&
    copy.usage === message.usage &&
    copy.timestamp === message.timestamp &&
    copy.api === message.api &&
    copy.provider === message.provider &&
    copy.model === message.model &&
    copy.responseId === message.responseId &&
    copy.responseModel === message.responseModel &&
    copy.diagnostics === message.diagnostics &&
    copy.errorMessage === message.errorMessage
  );
}

/** A tool result with pi-ai's fields only. */
function toolResultCopy(message: ToolResultMessage): ToolResultMessage {
  const { role, toolCallId, toolName, content, details, isError, timestamp } = message;
  const clean: ToolResultMessage = { role, toolCallId, toolName, content, isError, timestamp };
  if (details !== undefined) clean.details = details;
  return clean;
}

function sameToolResult(copy: ToolResultMessage, message: ToolResultMessage): boolean {
  return (
    copy.content === message.content &&
    copy.toolCallId === message.toolCallId &&
    copy.toolName === message.toolName &&
    copy.details === message.details &&
    copy.isError === message.isError &&
    copy.timestamp === message.timestamp
  );
}
