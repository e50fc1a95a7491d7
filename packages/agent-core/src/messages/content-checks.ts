/*
 * Shape checks for messages and content that host code hands a turn: the
 * input's history and hidden messages, steering answers, hook decisions and
 * tool results. Each check answers what is wrong, with the path of the
 * offending field relative to the value checked (`content[1].text must be a
 * string, got 5`), or `undefined` when the value is well formed; the caller
 * names where the value came from and decides whose fault it is. Checked
 * where the value enters, a malformed message is reported as the host's
 * mistake instead of failing a later model request as if the provider had.
 */

import {
  agentMessageProblem,
  blockProblem,
  contentProblem,
  describeValue,
  isRecord,
  prefixed,
} from "@turnkit/agent-loop/internal";

export { contentProblem, describeValue };

/**
 * What is wrong with a transcript message (`undefined`: nothing): the loop's
 * check (an object with a string `role`; `user`, `assistant` and
 * `toolResult` messages with well-formed content, see
 * `agentMessageProblem`), and for the runner's own roles: `hidden` holds
 * text or text and image blocks, `host` a `kind`. Other roles (a host's own
 * message types) are the host's to read, and pass.
 */
export function messageProblem(message: unknown): string | undefined {
  if (isRecord(message) && message.role === "hidden") return prefixed(contentProblem(message.content));
  if (isRecord(message) && message.role === "host") {
    return typeof message.kind === "string" ? undefined : `.kind must be a string, got ${describeValue(message.kind)}`;
  }
  return agentMessageProblem(message);
}

/**
 * What is wrong with a model's response as a stream function handed it over
 * (`undefined`: nothing): it must be an `assistant` message whose content
 * is well formed (see {@link messageProblem}).
 */
export function responseProblem(message: unknown): string | undefined {
  if (!isRecord(message) || message.role !== "assistant")
    return ` must be an assistant message, got ${isRecord(message) ? `role ${describeValue(message.role)}` : describeValue(message)}`;
  return messageProblem(message);
}

/**
 * What is wrong with the first malformed message of `messages` (`[2].content
 * must be ...`), or with `messages` not being a list. Messages a host hands
 * over (a history, a replacement) are checked as {@link messageProblem}
 * does, and an assistant message's tool calls must carry their arguments
 * as an object (as the runner always stores them; a provider rejects
 * anything else in the next request).
 */
export function messagesProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return ` must be an array of messages, got ${describeValue(messages)}`;
  for (let index = 0; index < messages.length; index++) {
    const problem = messageProblem(messages[index]) ?? toolCallArgumentsProblem(messages[index]);
    if (problem) return `[${index}]${problem}`;
  }
  return undefined;
}

/** `.content[1].arguments must be an object ...` for the first tool call of an assistant message whose arguments are none. */
function toolCallArgumentsProblem(message: unknown): string | undefined {
  if (!isRecord(message) || message.role !== "assistant" || !Array.isArray(message.content)) return undefined;
  for (let index = 0; index < message.content.length; index++) {
    const block: unknown = message.content[index];
    if (isRecord(block) && block.type === "toolCall" && !isRecord(block.arguments))
      return `.content[${index}].arguments must be an object, got ${describeValue(block.arguments)}`;
  }
  return undefined;
}

/**
 * What is wrong with a message as the host sends one (`{ text, images?,
 * batchId? }`: the input's user message, a steering answer), or
 * `undefined`: `text` a string, `images` a list of image blocks, `batchId`
 * a string.
 */
export function inputMessageProblem(message: unknown): string | undefined {
  if (!isRecord(message)) return ` must be a message { text, images?, batchId? }, got ${describeValue(message)}`;
  if (typeof message.text !== "string") return `.text must be a string, got ${describeValue(message.text)}`;
  if (message.images !== undefined) {
    if (!Array.isArray(message.images)) return `.images must be an array, got ${describeValue(message.images)}`;
    const bad = message.images.findIndex((image) => blockProblem(image, ["image"]) !== undefined);
    if (bad >= 0) return `.images[${bad}] must be an image { type: "image", data, mimeType }`;
  }
  if (message.batchId !== undefined && typeof message.batchId !== "string")
    return `.batchId must be a string, got ${describeValue(message.batchId)}`;
  return undefined;
}
