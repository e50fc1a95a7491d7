import type { ImageContent, TextContent } from "@mariozechner/pi-ai";

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
 * the common `image/jpg`, it is sent as the plain type), else one line
 * naming its type and size, like audio (the bytes are not sent). `label`
 * heads the line (`image`, or a resource's URI).
 */
export function modelImage(data: string, mimeType: string, label = "image"): ImageContent | TextContent {
  const type = mimeType.split(";")[0]!.trim().toLowerCase();
  const plain = type === "image/jpg" ? "image/jpeg" : type;
  if (MODEL_IMAGE_TYPES.has(plain)) return { type: "image", data, mimeType: plain };
  return {
    type: "text",
    text: `[${label}, ${mimeType}, ${base64Bytes(data)} bytes: not shown (models take PNG, JPEG, GIF and WebP images)]`,
  };
}

/** Bytes encoded by a base64 string. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
