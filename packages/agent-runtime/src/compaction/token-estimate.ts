import type { AssistantMessage, Usage } from "@mariozechner/pi-ai";
import { isDroppedResponse } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { describeValue, isList, isRecord } from "@turnkit/agent-loop/internal";
import {
  ESTIMATE_CHARS_PER_TOKEN,
  ESTIMATE_IMAGE_TOKENS,
  ESTIMATE_OTHER_CHARS_PER_TOKEN,
  ESTIMATE_WIDE_CHARS_PER_TOKEN,
} from "../defaults.js";

/** How many tokens a history takes in a request, and where the figure comes from. */
export interface ContextTokenEstimate {
  /** Estimated tokens of the messages as the next request sends them. */
  tokens: number;
  /**
   * Index of the assistant message whose provider-reported usage the figure
   * starts from (that request's whole prompt plus its answer; the messages
   * after it are estimated), or `-1` when no usable report exists and every
   * message is estimated.
   */
  usageIndex: number;
}

/**
 * False for what a request never carries: host-only messages, responses
 * that ended with `error` or `aborted`, and responses a hook dropped.
 */
export function isSentToModel(message: AgentMessage): boolean {
  if (message.role === "host") return false;
  if (message.role === "assistant") {
    return message.stopReason !== "error" && message.stopReason !== "aborted" && !isDroppedResponse(message);
  }
  return true;
}

/**
 * A rough token count of one message: its text, thinking, tool names and
 * arguments by {@link estimateTextTokens}, {@link ESTIMATE_IMAGE_TOKENS}
 * per image, 0 for a message no request carries (see
 * {@link isSentToModel}). Tends to overestimate, which errs on the side of
 * compacting early. A malformed message (content that is no list, a block
 * that is no object, a field of the wrong type) is estimated from what is
 * well formed in it, never refused: a request would be refused instead.
 * Throws a `TypeError` when `message` is no object.
 */
export function estimateMessageTokens(message: AgentMessage): number {
  if (!isRecord(message as unknown))
    throw new TypeError(`estimateMessageTokens: message must be a message object, got ${describeValue(message)}`);
  if (!isSentToModel(message)) return 0;
  let tokens = 0;
  let images = 0;
  const blocks = (content: unknown): readonly unknown[] => (isList(content) ? content : []);
  switch (message.role) {
    case "user":
    case "hidden":
    case "toolResult":
      if (typeof message.content === "string") tokens += estimateTextTokens(message.content);
      for (const block of blocks(message.content)) {
        if (!isRecord(block)) continue;
        if (block.type === "text") tokens += estimateTextTokens(block.text);
        else images += 1;
      }
      break;
    case "assistant":
      for (const block of blocks(message.content)) {
        if (!isRecord(block)) continue;
        if (block.type === "text") tokens += estimateTextTokens(block.text);
        else if (block.type === "thinking") tokens += estimateTextTokens(block.thinking);
        else if (block.type === "toolCall")
          tokens += estimateTextTokens(block.name) + estimateTextTokens(jsonText(block.arguments ?? {}));
      }
      break;
    default:
      tokens += estimateTextTokens(jsonText(message));
  }
  return Math.ceil(tokens) + images * ESTIMATE_IMAGE_TOKENS;
}

/** `value` as JSON text, or "" when it has none (a bigint, a cycle, nesting too deep for `JSON.stringify`). Never throws. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/**
 * A rough, unrounded token count of `text` by script:
 * {@link ESTIMATE_CHARS_PER_TOKEN} ASCII characters per token,
 * {@link ESTIMATE_OTHER_CHARS_PER_TOKEN} for other characters below U+2E80,
 * {@link ESTIMATE_WIDE_CHARS_PER_TOKEN} from U+2E80 on (Chinese, Japanese,
 * Korean take about a token per character, four times what ASCII text does).
 * 0 for a value that is no string.
 */
export function estimateTextTokens(text: unknown): number {
  if (typeof text !== "string") return 0;
  let tokens = 0;
  for (let index = 0; index < text.length; index += 1) tokens += charTokens(text.charCodeAt(index));
  return tokens;
}

/** The estimated tokens of one UTF-16 code unit `code` (see {@link estimateTextTokens}). */
export function charTokens(code: number): number {
  if (code < 0x80) return 1 / ESTIMATE_CHARS_PER_TOKEN;
  return code < 0x2e80 ? 1 / ESTIMATE_OTHER_CHARS_PER_TOKEN : 1 / ESTIMATE_WIDE_CHARS_PER_TOKEN;
}

/**
 * The tokens `messages` take in the next request. Starts from the usage the
 * provider reported for the newest response that was sent normally (its
 * prompt and answer: system prompt and tools included) and adds an estimate
 * of the messages after it; without such a report, estimates every message
 * (system prompt and tools not included). Responses that failed (a 429, a
 * 529) report no usage and are passed over, so they never hide a large
 * history.
 *
 * `usableFrom`: responses before this index are not trusted (their usage
 * describes a history that was since compacted). Throws a `TypeError` when
 * `messages` is no array, or holds a message that is no object.
 */
export function estimateContextTokens(messages: readonly AgentMessage[], usableFrom = 0): ContextTokenEstimate {
  if (!isList(messages))
    throw new TypeError(`estimateContextTokens: messages must be an array, got ${describeValue(messages)}`);
  if (typeof usableFrom !== "number" || Number.isNaN(usableFrom))
    throw new TypeError(`estimateContextTokens: usableFrom must be a number, got ${describeValue(usableFrom)}`);
  let usageIndex = -1;
  for (let index = messages.length - 1; index >= usableFrom && index >= 0; index -= 1) {
    const message = messageAt(messages, index);
    if (message.role === "assistant" && isSentToModel(message) && reportedTokens(message) > 0) {
      usageIndex = index;
      break;
    }
  }
  let tokens = usageIndex >= 0 ? reportedTokens(messages[usageIndex] as AssistantMessage) : 0;
  for (let index = usageIndex + 1; index < messages.length; index += 1)
    tokens += estimateMessageTokens(messageAt(messages, index));
  return { tokens, usageIndex };
}

/** `messages[index]`; a `TypeError` naming it when it is no message object. */
function messageAt(messages: readonly AgentMessage[], index: number): AgentMessage {
  const message = messages[index]!;
  if (!isRecord(message as unknown))
    throw new TypeError(
      `estimateContextTokens: messages[${index}] must be a message object, got ${describeValue(message)}`,
    );
  return message;
}

/** The context a response's request used, as its provider reported it. */
function reportedTokens(message: AssistantMessage): number {
  const usage: Partial<Usage> | undefined = message.usage;
  if (!usage) return 0;
  if (typeof usage.totalTokens === "number" && usage.totalTokens > 0) return usage.totalTokens;
  return (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
}
