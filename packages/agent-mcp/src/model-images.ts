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
  const sniffed = imageTypeOf(data);
  if (sniffed !== undefined) return { type: "image", data, mimeType: sniffed };
  return {
    type: "text",
    text: `[${label}, ${named}${bytes} bytes: not shown (the bytes are not a PNG, JPEG, GIF or WebP image)]`,
  };
}

/** The type of image the base64 `data` holds, by the signature its bytes start with; `undefined` for none of the four. */
function imageTypeOf(data: string): string | undefined {
  const head = Buffer.from(data.slice(0, 16), "base64");
  const ascii = (start: number, end: number) => head.subarray(start, end).toString("latin1");
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes encoded by a base64 string. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
