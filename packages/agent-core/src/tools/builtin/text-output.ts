import { TURN_DEFAULTS } from "../../defaults.js";

/**
 * Cuts a line longer than `max` characters and says so, so one minified
 * line cannot fill the context. A character of two UTF-16 units (an emoji)
 * at the cut is left out whole, never cut in half.
 */
export function clipLine(line: string, max = TURN_DEFAULTS.maxLineChars): string {
  if (line.length <= max) return line;
  const highSurrogateAtCut = /[\uD800-\uDBFF]/.test(line.charAt(max - 1));
  return `${line.slice(0, highSurrogateAtCut ? max - 1 : max)}… [line cut at ${max} of ${line.length} characters]`;
}

/** True when the bytes look binary (a NUL in the first 8 KB), the check `grep` and `git` use. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/** Human-readable byte count: `512 B`, `50 KB`, `1.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/**
 * Keeps the last `limit` bytes of a stream (a command's output), counting
 * everything that went through. Memory stays bounded by about twice `limit`.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes received in total. */
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    if (this.kept > this.limit * 2) this.compact();
  }

  /** True when earlier bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.limit;
  }

  /** The kept tail as text; a UTF-8 sequence cut at the front is dropped rather than garbled. */
  text(): string {
    this.compact();
    let tail = Buffer.concat(this.chunks);
    if (this.truncated) {
      let start = 0;
      while (start < tail.length && start < 4 && (tail[start]! & 0xc0) === 0x80) start++;
      tail = tail.subarray(start);
    }
    return tail.toString("utf8");
  }

  private compact(): void {
    if (this.kept <= this.limit) return;
    const all = Buffer.concat(this.chunks);
    const tail = all.subarray(all.length - this.limit);
    this.chunks = [tail];
    this.kept = tail.length;
  }
}
