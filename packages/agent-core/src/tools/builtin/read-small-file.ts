import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** A file read whole, or why it was not. */
export type SmallFile = { bytes: Buffer } | { skipped: "too-large" | "not-a-file" | "unreadable" };

/**
 * Reads regular files of at most `maxBytes` synchronously, one after the
 * other, into one buffer it reuses: one open, one `fstat` and the reads per
 * file, with no thread-pool round trip (the point, for `grep` over
 * thousands of small files). The buffer grows to the
 * largest file read, so it holds at most `maxBytes`.
 */
export class SmallFileReader {
  private scratch = Buffer.allocUnsafe(64 * 1024);

  constructor(private readonly maxBytes: number) {}

  /**
   * The file's bytes, valid only until the next call (copy them to keep
   * them). Opens without blocking, so a FIFO or device swapped in after a
   * walk saw a file is `not-a-file` rather than a hang. Never throws.
   */
  read(file: string): SmallFile {
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      return { skipped: "unreadable" };
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return { skipped: "not-a-file" };
      if (info.size > this.maxBytes) return { skipped: "too-large" };
      if (info.size > this.scratch.length)
        this.scratch = Buffer.allocUnsafe(Math.min(this.maxBytes, Math.max(info.size, this.scratch.length * 2)));
      let filled = 0;
      while (filled < info.size) {
        const read = readSync(fd, this.scratch, filled, info.size - filled, filled);
        if (read === 0) break;
        filled += read;
      }
      return { bytes: this.scratch.subarray(0, filled) };
    } catch {
      return { skipped: "unreadable" };
    } finally {
      closeSync(fd);
    }
  }
}
