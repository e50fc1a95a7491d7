import type { Message } from "@mariozechner/pi-ai";
import type { AgentMessage } from "./types.js";

function isLlmMessage(message: AgentMessage): message is Message {
  return message.role === "user" || message.role === "assistant" || message.role === "toolResult";
}

/**
 * Keeps provider messages, drops custom ones. Runs once per request over the
 * whole transcript, so the common case (no custom messages) is a plain scan
 * and one copy rather than a filter callback per message.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  for (let index = 0; index < messages.length; index++) {
    if (!isLlmMessage(messages[index]!)) return messages.filter(isLlmMessage);
  }
  return messages.slice() as Message[];
}

/**
 * {@link defaultConvertToLlm} for the requests of one run, which convert the
 * same transcript array again and again while it grows: the returned
 * function remembers which message objects it has already seen in that
 * array, all of them provider messages, and checks the role only of
 * messages that are new at their position (an identity comparison tells
 * them apart, so a message replaced or removed by anyone is checked again).
 * Its results are those of {@link defaultConvertToLlm}: a new array each
 * call, never one it keeps.
 */
export function transcriptConverter(): (messages: AgentMessage[]) => Message[] {
  let source: AgentMessage[] | undefined;
  /** The elements of `source` when it was last converted, when every one of them was a provider message. */
  const seen: AgentMessage[] = [];
  return (messages) => {
    let known = 0;
    if (messages === source) {
      const limit = Math.min(seen.length, messages.length);
      while (known < limit && messages[known] === seen[known]) known++;
    }
    for (let index = known; index < messages.length; index++) {
      if (!isLlmMessage(messages[index]!)) {
        source = undefined;
        seen.length = 0;
        return messages.filter(isLlmMessage);
      }
    }
    source = messages;
    seen.length = known;
    for (let index = known; index < messages.length; index++) seen.push(messages[index]!);
    return messages.slice() as Message[];
  };
}
