import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { sentImageType } from "@turnkit/agent-core/internal";

/**
 * The image types every provider the loop speaks to takes (Anthropic,
 * OpenAI, Google, Bedrock): PNG, JPEG, GIF and WebP. A provider refuses a
 * request with any other type, and since the image stays in the
 * transcript, it would refuse every later request of the session too.
 */
const MODEL_IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * An image from the server as the model may see it: an image block when
 * its type is one models take (written in any case, with parameters, or as
 * the common `image/jpg`, it is sent as the plain type) and its bytes are
 * an image of one of those types (sent as the type the bytes say, which a
 * provider checks the declared one against); else one line naming its type
 * and size, like audio (the bytes are not sent): a provider refuses an
 * empty image, or bytes that are no image of the type named, as it refuses
 * other types. `label` heads the line (`image`, or a resource's URI).
 */
export function modelImage(data: string, mimeType: string, label = "image"): ImageContent | TextContent {
  const type = mimeType.split(";")[0]!.trim().toLowerCase();
  const plain = type === "image/jpg" ? "image/jpeg" : type;
  const named = mimeType.trim() === "" ? "" : `${mimeType}, `;
  const bytes = base64Bytes(data);
  if (!MODEL_IMAGE_TYPES.has(plain))
    return {
      type: "text",
      text: `[${label}, ${named}${bytes} bytes: not shown (models take PNG, JPEG, GIF and WebP images)]`,
    };
  // The same check of the bytes as the transcript projection makes before each request.
  const sniffed = sentImageType(data);
  if (sniffed !== undefined) return { type: "image", data, mimeType: sniffed };
  return {
    type: "text",
    text: `[${label}, ${named}${bytes} bytes: not shown (the bytes are not a PNG, JPEG, GIF or WebP image)]`,
  };
}

/** Bytes encoded by a base64 string. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
