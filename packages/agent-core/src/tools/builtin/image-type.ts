import { imageSize } from "image-size";

/** The image formats `read` returns as images, by the type name `image-size` detects, with their MIME types. */
const MODEL_IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** An image `read` can hand to a model. */
export interface ModelImage {
  /** Taken from the content, not the file name. */
  mimeType: string;
  width: number;
  height: number;
}

/**
 * Detects a PNG, JPEG, GIF or WebP image from its bytes with the
 * `image-size` package. Returns `undefined` for any other content (another
 * image format, text, a truncated or corrupt header); never throws.
 */
export function detectModelImage(bytes: Uint8Array): ModelImage | undefined {
  try {
    // A copy with its own memory: image-size reads through a DataView that can run past a pooled or sliced Buffer's end.
    const { type, width, height } = imageSize(new Uint8Array(bytes));
    const mimeType = type === undefined ? undefined : MODEL_IMAGE_TYPES[type];
    return mimeType === undefined ? undefined : { mimeType, width, height };
  } catch {
    return undefined;
  }
}
