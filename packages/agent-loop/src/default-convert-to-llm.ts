import type { Message } from "@mariozechner/pi-ai";
import type { AgentMessage } from "./types.js";

function isLlmMessage(message: AgentMessage): message is Message {
  return message.role === "user" || message.role === "assistant" || message.role === "toolResult";
}

/** Keeps provider messages (user, assistant, tool results), drops custom ones; a new array each call. */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  return messages.filter(isLlmMessage);
}
