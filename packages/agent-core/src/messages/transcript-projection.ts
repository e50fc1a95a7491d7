import type { Message, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { TURN_DEFAULTS } from "../defaults.js";
import { hasImage, limitImages, userContentOf } from "./image-limits.js";
import { isBlankUserInput, isDroppedResponse } from "./turn-messages.js";
import {
  ASSISTANT_FIELDS,
  type CopyFields,
  TOOL_RESULT_FIELDS,
  USER_FIELDS,
  assistantCopy,
  hasOnlyFields,
  sameAssistant,
  sameToolResult,
  sameUser,
  toolResultCopy,
  userCopy,
} from "./model-copies.js";

/**
 * Whether `message`, projected last time to `copy` (`undefined`: left out),
 * is projected to it again, given that every message before it is. A user
 * message in a batch is never (merging depends on its neighbours).
 */
function projectsAs(message: AgentMessage, copy: Message | undefined): boolean {
  switch (message.role) {
    case "user":
    case "hidden":
      if (message.role === "user" && (message as { batchId?: string }).batchId !== undefined) return false;
      if (isBlankUserInput(message)) return copy === undefined;
      return copy?.role === "user" && sameUser(copy, message);
    case "assistant": {
      const leftOut = message.stopReason === "error" || message.stopReason === "aborted" || isDroppedResponse(message);
      if (copy === undefined) return leftOut;
      return !leftOut && copy.role === "assistant" && sameAssistant(copy, message);
    }
    case "toolResult":
      // Its call is known as before: the messages before it are, and its call id is compared.
      return copy?.role === "toolResult" && sameToolResult(copy, message);
    default:
      return copy === undefined;
  }
}

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
   * then looked at again on every call, its fields compared with its
   * projected copy. When none changed, the last projection stands and only
   * the new messages are projected; otherwise every message is projected
   * again, reusing the copies of those that did not change. `false` when the caller
   * promises that an array it hands over only ever grows: the messages a
   * call saw in it stay there, in place and unchanged, also once the array
   * is no longer handed over, and only messages after them are added (as
   * the loop treats its run's transcript, see `TranscriptProjection`). A
   * call then projects only the messages appended since the last one;
   * another array is compared with the last one message by message.
   */
  messagesMayChangeInPlace?: boolean;
}

/**
 * `projectAgentMessagesForModel` for a transcript that grows between
 * requests: each message is projected once and its projection reused while
 * the message is unchanged, so a request costs what is new since the last
 * one plus one copy of the result (and, when messages may change in place,
 * one look at each earlier message), not a rebuild of the whole transcript.
 *
 * Every call returns what `projectAgentMessagesForModel` returns for the same
 * messages: a fresh array (the caller may change it), whose messages are
 * shared with earlier results and must be treated as read-only. A call
 * whose messages do not start with those of the previous call (same
 * objects, same order: a compaction, a replaced request) starts over. Never
 * mutates its input.
 *
 * Without `messagesMayChangeInPlace`, the array of the previous call is
 * trusted to have only grown: `@turnkit/agent-loop` hands `convertToLlm`
 * its run's own transcript, to which it only appends between two requests
 * (the response it streams replaces its own partial, which no request has
 * seen), and a runner turn whose host sees no message (no hooks, no stop
 * or close callbacks) gives no code a chance to change it. Looking at
 * every earlier message again would cost each request the whole
 * transcript; a test of the loop guards that promise instead.
 */
export class TranscriptProjection {
  private readonly maxImages: number;
  private readonly imagesOmittedListener: ImagesOmittedListener | undefined;
  private readonly mayChangeInPlace: boolean;
  /**
   * When messages may change in place: the messages the last call projected, in order, each followed by its
   * projected copy (`undefined`: dropped or merged), so the next call reuses the copies of those unchanged.
   */
  private previous: (AgentMessage | Message | undefined)[] = [];
  /** The projection so far, before image limits. */
  private projected: Message[] = [];
  /** Indexes in `projected` of the messages holding an image, ascending; none before the first image. */
  private withImages: number[] | undefined = undefined;
  private lastBatchId: string | undefined;
  /**
   * When messages do not change in place: the array `projected` stands for, how many of its messages it has seen
   * and the last of them. Handed over again, only what it gained is looked at (see `messagesMayChangeInPlace`).
   */
  private source: readonly AgentMessage[] = [];
  private sourceLength = 0;
  private sourceLast: AgentMessage | undefined = undefined;
  /** Where {@link answersOpenCall} last found a call (message index in `projected`, block index): a hint it checks before trusting. */
  private lastCallFound: { message: number; block: number } | undefined = undefined;
  /** Index in `projected` of the newest response when only tool results follow it, and its calls answered so far. */
  private openResponse: number | undefined = undefined;
  private readonly answered = new Map<string, number>();

  constructor(options: TranscriptProjectionOptions = {}) {
    this.maxImages = options.maxImages ?? TURN_DEFAULTS.maxImagesPerRequest;
    this.imagesOmittedListener = options.imagesOmittedListener;
    this.mayChangeInPlace = options.messagesMayChangeInPlace ?? true;
  }

  /** The provider-ready messages of `messages` (see `projectAgentMessagesForModel`). */
  project(messages: readonly AgentMessage[]): Message[] {
    if (!this.mayChangeInPlace) this.projectGrowth(messages);
    else if (this.projectsAsBefore(messages)) this.projectAfterPrevious(messages);
    else this.projectAgain(messages);
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

  /**
   * Every message again; the copy made for a message at its place last time
   * is reused when its fields still match. The list of last time is
   * rewritten in place (each place is read before it is written), not built
   * anew for every request.
   */
  private projectAgain(messages: readonly AgentMessage[]): void {
    const previous = this.previous;
    this.startOver();
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      const reusable = previous[2 * index] === message ? (previous[2 * index + 1] as Message | undefined) : undefined;
      const copy = this.append(message, reusable);
      previous[2 * index] = message;
      previous[2 * index + 1] = copy;
    }
    previous.length = 2 * messages.length;
  }

  /**
   * When messages may change in place: whether every message the last call
   * projected is still at its place and would be projected exactly as then
   * (each looked at once, with the checks that decide whether its copy is
   * reused), so that their projection stands. Answers false, and every
   * message is projected again, for what one look at a message cannot
   * tell: a batch of user messages (`batchId`), a tool result left out for
   * want of its call.
   */
  private projectsAsBefore(messages: readonly AgentMessage[]): boolean {
    const { previous, projected, withImages } = this;
    const count = previous.length / 2;
    if (messages.length < count) return false;
    let at = 0;
    let images = 0;
    for (let index = 0; index < count; index++) {
      const message = messages[index]!;
      const copy = previous[2 * index + 1] as Message | undefined;
      if (message !== previous[2 * index] || !projectsAs(message, copy)) return false;
      if (copy === undefined) continue;
      // Its copy holds the same place, and holds an image exactly when it did (a content list may change in place).
      const hadImage = withImages !== undefined && withImages[images] === at;
      if (projected[at] !== copy || hasImage(copy) !== hadImage) return false;
      if (hadImage) images++;
      at++;
    }
    return at === projected.length && images === (withImages?.length ?? 0);
  }

  /** The messages after those of the last call, which {@link projectsAsBefore} found projected as before. */
  private projectAfterPrevious(messages: readonly AgentMessage[]): void {
    // No message of the last call had a batch id: none is open.
    this.lastBatchId = undefined;
    for (let index = this.previous.length / 2; index < messages.length; index++) {
      const message = messages[index]!;
      this.previous.push(message, this.append(message, undefined));
    }
  }

  /** Only the messages appended since the last call, when `messages` begins with those it saw; otherwise every message. */
  private projectGrowth(messages: readonly AgentMessage[]): void {
    if (!this.continues(messages)) this.startOver();
    for (let index = this.sourceLength; index < messages.length; index++) this.append(messages[index]!, undefined);
    this.source = messages;
    this.sourceLength = messages.length;
    this.sourceLast = messages[messages.length - 1];
  }

  /**
   * Whether `messages` begins with the messages of the last call, in
   * order. The array of the last call has only grown (see
   * `messagesMayChangeInPlace`): handed over again, its last message seen
   * is enough to tell it was not cut; another array (the loop's next run)
   * is compared with it message by message.
   */
  private continues(messages: readonly AgentMessage[]): boolean {
    const length = this.sourceLength;
    if (messages.length < length) return false;
    if (length === 0) return true;
    if (messages === this.source) return messages[length - 1] === this.sourceLast;
    for (let index = 0; index < length; index++) if (messages[index] !== this.source[index]) return false;
    return true;
  }

  private startOver(): void {
    this.projected = [];
    this.openResponse = undefined;
    this.answered.clear();
    this.withImages = undefined;
    this.lastBatchId = undefined;
    this.source = [];
    this.sourceLength = 0;
    this.sourceLast = undefined;
  }

  /** Projects one more message onto the end; returns its copy, `undefined` when it was dropped or merged. */
  private append(message: AgentMessage, reusable: Message | undefined): Message | undefined {
    switch (message.role) {
      case "user":
      case "hidden": {
        // Says nothing (a provider drops it or refuses the request): left out as if it were not there.
        if (isBlankUserInput(message)) return undefined;
        const batchId = message.role === "user" ? (message as { batchId?: string }).batchId : undefined;
        const previous = this.projected[this.projected.length - 1];
        const merge = batchId !== undefined && batchId === this.lastBatchId && previous?.role === "user";
        this.lastBatchId = batchId;
        if (merge) {
          const merged: UserMessage = {
            ...previous,
            content: [...userContentOf(previous.content), ...userContentOf(message.content)],
          };
          this.replaceLast(merged);
          return undefined;
        }
        const copy =
          reusable?.role === "user" && sameUser(reusable, message)
            ? reusable
            : ((message.role === "user" ? this.asOwnCopy<UserMessage>(message, USER_FIELDS) : undefined) ??
              userCopy(message));
        this.push(copy);
        return copy;
      }
      case "assistant": {
        this.lastBatchId = undefined;
        if (message.stopReason === "error" || message.stopReason === "aborted" || isDroppedResponse(message))
          return undefined;
        const copy =
          reusable?.role === "assistant" && sameAssistant(reusable, message)
            ? reusable
            : (this.asOwnCopy(message, ASSISTANT_FIELDS) ?? assistantCopy(message));
        this.push(copy);
        return copy;
      }
      case "toolResult": {
        this.lastBatchId = undefined;
        if (!this.answersOpenCall(message.toolCallId)) return undefined;
        const copy =
          reusable?.role === "toolResult" && sameToolResult(reusable, message)
            ? reusable
            : (this.asOwnCopy(message, TOOL_RESULT_FIELDS) ?? toolResultCopy(message));
        this.push(copy);
        return copy;
      }
      default:
        // Host-only and unknown custom messages never reach a model.
        return undefined;
    }
  }

  /**
   * Whether a result for `toolCallId` goes here: the newest projected
   * response made that call, only tool results follow it, and it has more
   * calls of that id than results so far (a response may name two calls
   * alike: the n-th result answers the n-th). Any other result (after a user
   * message, one too many, one for an earlier response's call) no provider
   * accepts. The block after the call found last is looked at first.
   */
  private answersOpenCall(toolCallId: string): boolean {
    const at = this.openResponse;
    const response = at === undefined ? undefined : this.projected[at];
    if (at === undefined || response?.role !== "assistant") return false;
    const { content } = response;
    const earlier = this.answered.get(toolCallId) ?? 0;
    const found = this.lastCallFound;
    let index = found?.message === at ? found.block + 1 : content.length;
    const hinted = content[index];
    if (earlier > 0 || !(hinted?.type === "toolCall" && hinted.id === toolCallId)) {
      index = content.findIndex((block) => block.type === "toolCall" && block.id === toolCallId);
      for (let skip = earlier; skip > 0 && index >= 0; skip--)
        index = content.findIndex((block, i) => i > index && block.type === "toolCall" && block.id === toolCallId);
      if (index < 0) return false;
    }
    this.lastCallFound = { message: at, block: index };
    this.answered.set(toolCallId, earlier + 1);
    return true;
  }

  /**
   * `message` itself when it can serve as its own copy: nothing changes it
   * in place (see `messagesMayChangeInPlace`) and it is a plain object with
   * exactly the fields its copy would have. A long turn then keeps no copy
   * of most of its messages, as pi's own conversion keeps none.
   */
  private asOwnCopy<TMessage extends Message>(message: AgentMessage, fields: CopyFields): TMessage | undefined {
    return !this.mayChangeInPlace && hasOnlyFields(message, fields) ? (message as TMessage) : undefined;
  }

  private push(message: Message): void {
    if (hasImage(message)) (this.withImages ??= []).push(this.projected.length);
    if (message.role === "assistant") {
      this.openResponse = this.projected.length;
      this.answered.clear();
    } else if (message.role !== "toolResult") this.openResponse = undefined;
    this.projected.push(message);
  }

  private replaceLast(message: Message): void {
    const last = this.projected.length - 1;
    this.projected[last] = message;
    if (hasImage(message) && this.withImages?.[this.withImages.length - 1] !== last)
      (this.withImages ??= []).push(last);
  }
}
