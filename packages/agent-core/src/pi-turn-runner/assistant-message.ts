import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";

/** Whether `message` is an assistant response that ended with `error` or `aborted`. */
export function isErrorOrAborted(message: AgentMessage | undefined): boolean {
  return message?.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");
}

/** Whether the response asked for any tool call. */
export function hasToolCalls(message: AssistantMessage): boolean {
  return message.content.some((block) => block.type === "toolCall");
}

/** Removes the response's tool calls in place, so none of them runs; a `toolUse` stop becomes `stop`. */
export function stripToolCalls(message: AssistantMessage): void {
  if (!hasToolCalls(message)) return;
  message.content = message.content.filter((block) => block.type !== "toolCall");
  if (message.stopReason === "toolUse") message.stopReason = "stop";
}

/** Replaces the response's text blocks, in place, with one block `text` where the first one was; other blocks stay. */
export function replaceText(message: AssistantMessage, text: string): void {
  const first = message.content.findIndex((block) => block.type === "text");
  const kept: AssistantMessage["content"] = message.content.filter((block) => block.type !== "text");
  const at = first < 0 ? kept.length : first;
  kept.splice(at, 0, { type: "text", text });
  message.content = kept;
}
