import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { type HiddenContextMessage, createHiddenMessage } from "@turnkit/agent-core";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { base64Bytes } from "./call-result.js";

/**
 * A resource the host chose to attach to a turn, as a hidden message for
 * `RunTurnInput.beforeUserMessages` (the model reads it as user content
 * before the user's message; it is persisted like any hidden message, with
 * the extension id as `source`):
 *
 * - text contents: `Resource <uri>, <mime>:` then the text;
 * - image blobs: the image (base64 and MIME type unchanged), after a line
 *   naming it;
 * - other blobs: one line naming the URI, type and size (the bytes are not
 *   sent).
 */
export function resourceContextMessage(serverId: string, result: ReadResourceResult): HiddenContextMessage {
  const content: (TextContent | ImageContent)[] = [];
  for (const item of result.contents) {
    const type = item.mimeType ? `, ${item.mimeType}` : "";
    if ("text" in item && typeof item.text === "string") {
      content.push({ type: "text", text: `Resource ${item.uri}${type}:\n${item.text}` });
    } else if ("blob" in item && typeof item.blob === "string" && item.mimeType?.startsWith("image/")) {
      content.push({ type: "text", text: `Resource ${item.uri}${type}:` });
      content.push({ type: "image", data: item.blob, mimeType: item.mimeType });
    } else if ("blob" in item && typeof item.blob === "string") {
      content.push({
        type: "text",
        text: `[resource ${item.uri}${type}, ${base64Bytes(item.blob)} bytes of binary data: not shown]`,
      });
    }
  }
  return createHiddenMessage(content, serverId);
}
