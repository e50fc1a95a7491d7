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

function isTooSmall(image: ImageContent): boolean {
  const size = readImageSize(image.data);
  return (
    size !== undefined &&
    (size.width < TURN_DEFAULTS.minImageDimensionPx || size.height < TURN_DEFAULTS.minImageDimensionPx)
  );
}

/**
 * Replaces tiny images, and all but the newest `maxImages`, by text
 * placeholders, walking from the end. `withImages` lists, ascending, the
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
      if (block.type !== "image") content.push(block);
      else if (isTooSmall(block)) {
        omitted.count++;
        content.push({
          type: "text",
          text: `[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: ${imageLabel(block)}]`,
        });
      } else if (kept < maxImages) {
        kept++;
        content.push(block);
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
