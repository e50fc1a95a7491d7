import type { ImageContent, UserMessage } from "@mariozechner/pi-ai";

/** A user message with one text block, as `Agent.prompt(text)` builds it. `timestamp` is 0: traces never show it. */
export function user(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 0 };
}

/** A tiny PNG image block (the data is never decoded). */
export function pngImage(): ImageContent {
  return { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
}
