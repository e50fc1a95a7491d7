import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { type HiddenContextMessage, createHiddenMessage } from "@turnkit/agent-core";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { base64Bytes, modelImage } from "./model-images.js";

/**
 * A resource the host chose to attach to a turn, as a hidden message for
 * `RunTurnInput.beforeUserMessages` (the model reads it as user content
 * before the user's message; it is persisted like any hidden message, with
 * the extension id as `source`):
 *
 * - text contents: `Resource <uri>, <mime>:` then the text;
 * - image blobs: the image after a line naming it, when models take its
 *   type (PNG, JPEG, GIF, WebP), else one line naming it (see `modelImage`);
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
      const image = modelImage(item.blob, item.mimeType, `resource ${item.uri}`);
      if (image.type === "image") content.push({ type: "text", text: `Resource ${item.uri}${type}:` });
      content.push(image);
    } else if ("blob" in item && typeof item.blob === "string") {
      content.push({
        type: "text",
        text: `[resource ${item.uri}${type}, ${base64Bytes(item.blob)} bytes of binary data: not shown]`,
      });
    }
  }
  return createHiddenMessage(content, serverId);
}
