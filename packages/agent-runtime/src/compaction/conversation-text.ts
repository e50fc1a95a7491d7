import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { charTokens, isSentToModel, jsonText } from "./token-estimate.js";

/**
 * The messages as plain text for a summary request, one labelled line
 * group per message: `[User]`, `[Context]` (hidden messages), `[Assistant]`,
 * `[Tool call] name {arguments}`, `[Tool result name]` (cut after
 * `toolResultMaxChars` characters with a note of what was left out).
 * Thinking, images (named by file when known), host-only messages and
 * responses never sent to a model are left out or reduced to a marker.
 * As text, the summary model reads the conversation instead of continuing it.
 */
export function conversationText(messages: readonly AgentMessage[], toolResultMaxChars: number): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (!isSentToModel(message)) continue;
    switch (message.role) {
      case "user":
        lines.push(`[User]: ${contentText(message.content)}`);
        break;
      case "hidden":
        lines.push(`[Context]: ${contentText(message.content)}`);
        break;
      case "assistant":
        for (const block of message.content) {
          if (block.type === "text" && block.text.trim() !== "") lines.push(`[Assistant]: ${block.text}`);
          else if (block.type === "toolCall") lines.push(`[Tool call] ${block.name} ${jsonText(block.arguments)}`);
        }
        break;
      case "toolResult": {
        const label = message.isError
          ? `[Tool result ${message.toolName}, error]`
          : `[Tool result ${message.toolName}]`;
        lines.push(`${label}: ${clip(contentText(message.content), toolResultMaxChars)}`);
        break;
      }
      default:
        lines.push(`[${message.role}]: ${clip(jsonText(message), toolResultMaxChars)}`);
    }
  }
  return lines.join("\n\n");
}

function contentText(content: string | readonly (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => {
      if (block.type === "text") return block.text;
      const name = (block as ImageContent & { fileName?: unknown }).fileName;
      return typeof name === "string" ? `[image ${name}]` : "[image]";
    })
    .join("\n");
}

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters left out]`;
}

/**
 * `text` cut to its newest part of at most `maxTokens` by the estimate
 * (`estimateTextTokens`, character by character), starting at a message boundary, after a note of
 * how much was left out; `text` itself when it fits.
 */
export function keepNewest(text: string, maxTokens: number): string {
  let tokens = 0;
  let from = text.length;
  while (from > 0) {
    const next = tokens + charTokens(text.charCodeAt(from - 1));
    if (next > maxTokens) break;
    tokens = next;
    from -= 1;
  }
  if (from === 0) return text;
  const boundary = text.indexOf("\n\n", from);
  const start = boundary < 0 ? from : boundary + 2;
  return `[… the oldest ${start} characters of the conversation were left out to fit the summary model's window]\n\n${text.slice(start)}`;
}
