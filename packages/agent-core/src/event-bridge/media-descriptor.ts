import type { ProtocolMediaDescriptor, ProtocolTextContent } from "@turnkit/protocol";
import { JSON_SAFE_MAX_LIST_LENGTH } from "./json-safe.js";

/** A content block as a tool may return it: text, an image, or other inline media with base64 `data`. */
type ResultBlock = { type: string; [field: string]: unknown };

/**
 * A tool result's content as runtime events carry it: text blocks as they
 * are, every block with inline base64 `data` (an image, a video, ...)
 * replaced by a {@link ProtocolMediaDescriptor} (its `type`, MIME type,
 * decoded size and `fileName` when it had one). Anything else that is not
 * text (a malformed block) is kept only as a descriptor of size 0, so no
 * unknown payload reaches an event. Never mutates `content`; never throws.
 */
export function describeInlineMedia(
  content: readonly unknown[] | undefined,
): (ProtocolTextContent | ProtocolMediaDescriptor)[] {
  if (!Array.isArray(content)) return [];
  return content.map((block) => (isTextBlock(block) ? block : describeBlock(block)));
}

/**
 * A copy of `value` with the inline media of its `content` array described,
 * for event attributes that carry a whole tool result (a partial result in
 * `debug.trace`). Values without a `content` array are returned as they are.
 */
export function withMediaDescribed(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !Array.isArray((value as { content?: unknown }).content))
    return value;
  // A list too long for an event is left to jsonSafe, which writes it as "[Too long]".
  if ((value as { content: unknown[] }).content.length > JSON_SAFE_MAX_LIST_LENGTH) return value;
  return { ...value, content: describeInlineMedia((value as { content: unknown[] }).content) };
}

function isTextBlock(block: unknown): block is ProtocolTextContent {
  return (
    typeof block === "object" &&
    block !== null &&
    (block as ResultBlock).type === "text" &&
    typeof (block as ResultBlock).text === "string"
  );
}

function describeBlock(block: unknown): ProtocolMediaDescriptor {
  const fields = (typeof block === "object" && block !== null ? block : {}) as Partial<ResultBlock>;
  const descriptor: ProtocolMediaDescriptor = {
    type: "media",
    mediaType: typeof fields.type === "string" ? fields.type : "unknown",
    mimeType: typeof fields.mimeType === "string" ? fields.mimeType : "",
    bytes: typeof fields.data === "string" ? base64ByteLength(fields.data) : 0,
  };
  if (typeof fields.fileName === "string" && fields.fileName !== "") descriptor.fileName = fields.fileName;
  return descriptor;
}

/** Decoded size of base64 text (padding and a `data:` prefix accounted for), without decoding it. */
export function base64ByteLength(data: string): number {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1;
  let length = data.length - (comma + 1);
  let end = data.length;
  while (end > comma + 1 && data.charCodeAt(end - 1) === 61 /* = */) {
    end--;
    length--;
  }
  return Math.floor((length * 3) / 4);
}
