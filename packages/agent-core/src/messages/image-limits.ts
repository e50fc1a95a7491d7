import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";
import type { ProtocolImageContent } from "@turnkit/protocol";
import { TURN_DEFAULTS } from "../defaults.js";
import { readImageSize } from "./image-size.js";

type UserContent = (TextContent | ImageContent)[];

/** A user message's content as blocks. */
export function userContentOf(content: string | UserContent): UserContent {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Whether a projected message holds an image block (only user messages and tool results can). */
export function hasImage(message: Message): boolean {
  if (message.role === "assistant" || typeof message.content === "string") return false;
  for (const block of message.content) if (block.type === "image") return true;
  return false;
}

/** The image's `fileName` (see `ProtocolImageContent`), else its MIME type: what a placeholder names. */
function imageLabel(image: ImageContent): string {
  const { fileName } = image as ProtocolImageContent;
  return typeof fileName === "string" && fileName !== "" ? fileName : image.mimeType;
}

/**
 * The type a provider takes an image as, by the signature its bytes start
 * with: PNG, JPEG, GIF or WebP (what every provider the loop speaks to
 * takes); `undefined` for anything else (empty data, other formats, no
 * image at all). Such an image would make a provider refuse the request,
 * and every later one of the session, since it stays in the transcript.
 */
export function sentImageType(data: string): string | undefined {
  const head = Buffer.from(data.slice(0, 16), "base64");
  const ascii = (start: number, end: number) => head.subarray(start, end).toString("latin1");
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isTooSmall(image: ImageContent): boolean {
  const size = readImageSize(image.data);
  return (
    size !== undefined &&
    (size.width < TURN_DEFAULTS.minImageDimensionPx || size.height < TURN_DEFAULTS.minImageDimensionPx)
  );
}

/**
 * Replaces images no provider takes (bytes that are no PNG, JPEG, GIF or
 * WebP image), tiny images, and all but the newest `maxImages`, by text
 * placeholders, walking from the end; a kept image is sent as the type its
 * bytes are. `withImages` lists, ascending, the
 * indexes of the messages holding images (no other message is looked at).
 * Each message changed is replaced in `messages` by a new object; `omitted`
 * counts the placeholders. Returns `messages`.
 */
export function limitImages(
  messages: Message[],
  withImages: readonly number[],
  maxImages: number,
  omitted: { count: number },
): Message[] {
  let kept = 0;
  for (let at = withImages.length - 1; at >= 0; at--) {
    const index = withImages[at]!;
    const message = messages[index]!;
    if (message.role === "assistant" || typeof message.content === "string") continue;
    const content: UserContent = [];
    for (let blockIndex = message.content.length - 1; blockIndex >= 0; blockIndex--) {
      const block = message.content[blockIndex]!;
      if (block.type !== "image") {
        content.push(block);
        continue;
      }
      const type = sentImageType(block.data);
      if (type === undefined) {
        omitted.count++;
        content.push({
          type: "text",
          text: `[image omitted, not a PNG, JPEG, GIF or WebP image: ${imageLabel(block)}]`,
        });
      } else if (isTooSmall(block)) {
        omitted.count++;
        content.push({
          type: "text",
          text: `[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: ${imageLabel(block)}]`,
        });
      } else if (kept < maxImages) {
        kept++;
        // Sent as the type its bytes are, which a provider checks the declared one against.
        content.push(block.mimeType === type ? block : { ...block, mimeType: type });
      } else {
        omitted.count++;
        content.push({
          type: "text",
          text: `[image omitted to stay within ${maxImages} images per request: ${imageLabel(block)}]`,
        });
      }
    }
    content.reverse();
    messages[index] = { ...message, content } as Message;
  }
  return messages;
}
