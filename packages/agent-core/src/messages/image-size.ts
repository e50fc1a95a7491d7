import { imageSize } from "image-size";

/** Pixel dimensions of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

/** How much of the base64 payload is decoded: a JPEG's frame header can sit behind large metadata blocks. */
const MAX_HEADER_BYTES = 256 * 1024;

/**
 * Reads the width and height of a base64-encoded image from its header,
 * through the `image-size` package, without decoding the pixels: PNG, JPEG,
 * GIF and WebP (the formats providers accept) and the other formats that
 * package knows. Only the first 256 KB are decoded. Returns `undefined` for
 * an unknown format or a header it cannot read (truncated, corrupt, or
 * behind more than 256 KB of metadata); never throws.
 */
export function readImageSize(base64: string): ImageSize | undefined {
  // 4 base64 characters are 3 bytes.
  const prefixChars = (MAX_HEADER_BYTES / 3) * 4;
  const bytes = Buffer.from(base64.length > prefixChars ? base64.slice(0, prefixChars) : base64, "base64");
  try {
    // A copy with its own memory: image-size reads through a DataView that can run past a pooled Buffer's end.
    const { width, height } = imageSize(new Uint8Array(bytes));
    return { width, height };
  } catch {
    return undefined;
  }
}
