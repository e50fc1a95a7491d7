import type { AssistantMessage, ImageContent, TextContent, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { blockProblem, contentProblem, describeValue, isRecord } from "@turnkit/agent-loop/internal";

/**
 * A message the model sees as user input but a UI does not show as the
 * user's words: `beforeUserMessages`, `appendMessage` decisions and
 * after-LLM retry prompts. Persisted like any other message.
 */
export interface HiddenContextMessage {
  /** Tells it from the user's own messages; the model gets it as a user message all the same. */
  role: "hidden";
  /** What the model reads, text and images as in a user message. */
  content: string | (TextContent | ImageContent)[];
  /** When it was made, in milliseconds since the epoch (`Date.now()`). */
  timestamp: number;
  /** Who added it (a hook, an extension id). */
  source?: string;
}

/**
 * A message kept in history for the host only (notes, markers, responses a
 * hook dropped). Never sent to a model.
 */
export interface HostOnlyMessage {
  /** Marks it as the host's: dropped whenever messages are projected for a model. */
  role: "host";
  /** The host's own label for what it records (`"note"`); Turnkit never reads it. */
  kind: string;
  /** The host's payload, kept and persisted as given; Turnkit never reads it. Keep it JSON if history is stored. */
  data?: unknown;
  /** When it was made, in milliseconds since the epoch. */
  timestamp: number;
}

declare module "@turnkit/agent-loop" {
  interface CustomAgentMessages {
    /** Context the model reads as user input and a UI does not show as the user's words. */
    hidden: HiddenContextMessage;
    /** A record for the host only; never sent to a model. */
    host: HostOnlyMessage;
  }
}

/**
 * Host fields a user message may carry in history. They are stripped before
 * a request. `batchId` groups messages the user sent together; they are
 * merged into one user message for the model.
 */
export interface UserMessageHostFields {
  /** Consecutive user messages with the same `batchId` reach the model as one message; absent: never merged. */
  batchId?: string;
  /** The host's id of the message; Turnkit never sets or reads it, and it is not sent to the model. */
  messageId?: string;
}

/** A user message as stored by a turn: pi-ai's plus optional host fields. */
export type TurnUserMessage = UserMessage & UserMessageHostFields;

/**
 * Marker set on an assistant message that must never be sent to a model
 * again: a response an after-LLM hook dropped for `retry`, or the empty
 * answer of a `skip` decision. The projection of messages for the model
 * (`projectAgentMessagesForModel`) drops such messages.
 */
export const DROPPED_RESPONSE_FIELD = "turnkitDropped";

/** True when an assistant message was marked with {@link DROPPED_RESPONSE_FIELD}. */
export function isDroppedResponse(message: AgentMessage): boolean {
  return (
    isRecord(message as unknown) &&
    message.role === "assistant" &&
    (message as unknown as Record<string, unknown>)[DROPPED_RESPONSE_FIELD] !== undefined
  );
}

/** Marks an assistant message as dropped, recording why. Mutates the message in place. */
export function markDroppedResponse(message: AssistantMessage, reason: string): void {
  (message as unknown as Record<string, unknown>)[DROPPED_RESPONSE_FIELD] = reason;
}

/**
 * Builds a user message from text and optional images, with host fields.
 * Throws a `TypeError` naming the argument for text that is no string,
 * images that are no list of image blocks, a `batchId` that is no string or
 * a `timestamp` that is no finite number.
 */
export function createUserMessage(
  text: string,
  options: { images?: ImageContent[]; batchId?: string; timestamp?: number } = {},
): TurnUserMessage {
  const problem = userMessageProblem(text, options);
  if (problem) throw new TypeError(`createUserMessage: ${problem}`);
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }];
  if (options.images) content.push(...options.images);
  const message: TurnUserMessage = { role: "user", content, timestamp: options.timestamp ?? Date.now() };
  if (options.batchId !== undefined) message.batchId = options.batchId;
  return message;
}

/**
 * Whether `message` is input the model gets as a user message (a user or a
 * hidden message) that says nothing: its text empty or only whitespace, and
 * no image (a provider drops such a message or refuses the request). Any
 * other message says something.
 */
export function isBlankUserInput(message: AgentMessage): boolean {
  if (message.role !== "user" && message.role !== "hidden") return false;
  const { content } = message as { content: HiddenContextMessage["content"] };
  if (typeof content === "string") return content.trim() === "";
  return content.every((block) => block.type === "text" && block.text.trim() === "");
}

/**
 * Builds a hidden context message. Throws a `TypeError` naming the argument
 * for content that is neither text nor a list of text and image blocks, or
 * a `source` that is no string.
 */
export function createHiddenMessage(
  content: string | (TextContent | ImageContent)[],
  source?: string,
): HiddenContextMessage {
  const problem = contentProblem(content);
  if (problem) throw new TypeError(`createHiddenMessage: ${problem}`);
  if (source !== undefined && typeof source !== "string") {
    throw new TypeError(`createHiddenMessage: source must be a string, got ${describeValue(source)}`);
  }
  const message: HiddenContextMessage = { role: "hidden", content, timestamp: Date.now() };
  if (source !== undefined) message.source = source;
  return message;
}

/** What is wrong with the arguments of {@link createUserMessage} (`undefined`: nothing). */
function userMessageProblem(text: unknown, options: unknown): string | undefined {
  if (typeof text !== "string") return `text must be a string, got ${describeValue(text)}`;
  if (!isRecord(options)) return `options must be an object, got ${describeValue(options)}`;
  const { images, batchId, timestamp } = options;
  if (images !== undefined) {
    if (!Array.isArray(images)) return `options.images must be a list of image blocks, got ${describeValue(images)}`;
    for (const [index, image] of images.entries()) {
      const problem = blockProblem(image, IMAGE_ONLY);
      if (problem) return `options.images[${index}]${problem}`;
    }
  }
  if (batchId !== undefined && typeof batchId !== "string")
    return `options.batchId must be a string, got ${describeValue(batchId)}`;
  if (timestamp !== undefined && !Number.isFinite(timestamp))
    return `options.timestamp must be a finite number, got ${describeValue(timestamp)}`;
  return undefined;
}

const IMAGE_ONLY = ["image"] as const;
