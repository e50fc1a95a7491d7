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
  isList,
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
 * What is wrong with one event a stream function streamed (`undefined`:
 * nothing), as far as the runner reads events before the final one: an
 * object with a string `type`; a `text_delta`, `thinking_delta` or
 * `toolcall_delta` event's `delta` a string; a `toolcall_end` event's
 * `toolCall` an object with a string `id` and `name`. An event of a type
 * pi-ai does not have passes (a newer pi-ai may add some); the final
 * message is checked on its own (see {@link responseProblem}). The answer
 * is a whole phrase: `a text_delta event's delta must be a string, got 5`.
 */
export function streamEventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return `a streamed event must be an object, got ${describeValue(event)}`;
  const { type } = event;
  switch (type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return typeof event.delta === "string"
        ? undefined
        : `a ${type} event's delta must be a string, got ${describeValue(event.delta)}`;
    case "toolcall_end": {
      const call = event.toolCall;
      if (!isRecord(call)) return `a toolcall_end event's toolCall must be an object, got ${describeValue(call)}`;
      if (typeof call.id !== "string")
        return `a toolcall_end event's toolCall.id must be a string, got ${describeValue(call.id)}`;
      if (typeof call.name !== "string")
        return `a toolcall_end event's toolCall.name must be a string, got ${describeValue(call.name)}`;
      return undefined;
    }
    default:
      return typeof type === "string"
        ? undefined
        : `a streamed event's type must be a string, got ${describeValue(type)}`;
  }
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
  if (!isList(messages)) return ` must be an array of messages, got ${describeValue(messages)}`;
  for (let index = 0; index < messages.length; index++) {
    const problem = messageProblem(messages[index]) ?? toolCallArgumentsProblem(messages[index]);
    if (problem) return `[${index}]${problem}`;
  }
  return undefined;
}

/** `.content[1].arguments must be an object ...` for the first tool call of an assistant message whose arguments are none. */
function toolCallArgumentsProblem(message: unknown): string | undefined {
  if (!isRecord(message) || message.role !== "assistant" || !isList(message.content)) return undefined;
  for (let index = 0; index < message.content.length; index++) {
    const block: unknown = message.content[index];
    if (isRecord(block) && block.type === "toolCall" && !isRecord(block.arguments))
      return `.content[${index}].arguments must be an object, got ${describeValue(block.arguments)}`;
  }
  return undefined;
}

/**
 * Whether a message as the host sends one (`{ text, images? }`, already
 * checked by {@link inputMessageProblem}) says nothing: its text is empty
 * or only whitespace and it has no image. A provider drops such a user
 * message or refuses the request: the runner refuses it as a turn's own
 * message and leaves it out as steering, and the durable client refuses
 * both before they are stored.
 */
export function saysNothing(message: { text: string; images?: readonly unknown[] }): boolean {
  return message.text.trim() === "" && (message.images?.length ?? 0) === 0;
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
    if (!isList(message.images)) return `.images must be an array, got ${describeValue(message.images)}`;
    const bad = message.images.findIndex((image) => blockProblem(image, ["image"]) !== undefined);
    if (bad >= 0) return `.images[${bad}] must be an image { type: "image", data, mimeType }`;
  }
  if (message.batchId !== undefined && typeof message.batchId !== "string")
    return `.batchId must be a string, got ${describeValue(message.batchId)}`;
  return undefined;
}
