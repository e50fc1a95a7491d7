/** Pixel dimensions of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

/** How much of the base64 payload is decoded to find a JPEG's frame header. */
const MAX_HEADER_BYTES = 256 * 1024;

/**
 * Reads the width and height from the header of a base64-encoded PNG, GIF,
 * JPEG or WebP image without decoding the pixels. Returns `undefined` for
 * other formats or a header it cannot read; never throws.
 */
export function readImageSize(base64: string): ImageSize | undefined {
  let bytes: Buffer;
  try {
    // Decode only a prefix: 4 base64 chars are 3 bytes.
    const prefix = base64.length > (MAX_HEADER_BYTES / 3) * 4 ? base64.slice(0, (MAX_HEADER_BYTES / 3) * 4) : base64;
    bytes = Buffer.from(prefix, "base64");
  } catch {
    return undefined;
  }
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString("latin1", 0, 3) === "GIF") {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return readJpegSize(bytes);
  if (bytes.length >= 30 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") {
    return readWebpSize(bytes);
  }
  return undefined;
}

function readJpegSize(bytes: Buffer): ImageSize | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    const length = bytes.readUInt16BE(offset + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

function readWebpSize(bytes: Buffer): ImageSize | undefined {
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8 ") return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}
