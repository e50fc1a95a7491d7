import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { base64Bytes, modelImage } from "./model-images.js";

/** One item of a resource's contents, as MCP carries it (read, embedded in a tool result or a prompt). */
export interface ResourceItem {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
}

/**
 * A resource's item as the model may see it, the same wherever it comes
 * from (a tool result's embedded resource, a prompt's, a resource the host
 * attached): text headed by a line naming its URI and type; an image blob
 * of a type models take (see `modelImage`) as that line and the image; any
 * other image blob, or other binary data, as one line naming its URI, type
 * and size (the bytes are not sent).
 */
export function resourceItemContent(item: ResourceItem): (TextContent | ImageContent)[] {
  const type = item.mimeType ? `, ${item.mimeType}` : "";
  if (typeof item.text === "string") return [{ type: "text", text: `Resource ${item.uri}${type}:\n${item.text}` }];
  const blob = item.blob ?? "";
  if (item.mimeType?.startsWith("image/")) {
    const image = modelImage(blob, item.mimeType, `resource ${item.uri}`);
    return image.type === "image" ? [{ type: "text", text: `Resource ${item.uri}${type}:` }, image] : [image];
  }
  return [
    { type: "text", text: `[resource ${item.uri}${type}, ${base64Bytes(blob)} bytes of binary data: not shown]` },
  ];
}
