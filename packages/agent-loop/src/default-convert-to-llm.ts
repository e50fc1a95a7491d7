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
