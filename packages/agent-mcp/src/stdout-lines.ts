/**
 * The lines a stdio server writes to its stdout, one JSON-RPC message
 * each, framed as the MCP SDK's `ReadBuffer` frames them: bytes are held
 * until their newline, a `\r` before it is dropped, and holding more than
 * `maxBytes` (the unfinished line plus the chunk just read) fails with the
 * SDK's own words, which `isStdioMessageTooLarge` recognises. Unlike the
 * SDK, a byte-order mark at the start of a line (as .NET writes one before
 * its first output) is dropped, and a line that is empty or only blanks is
 * no line at all: neither is a message, and neither is a protocol error.
 */
export class StdoutLines {
  private held: Buffer | undefined;

  constructor(private readonly maxBytes: number) {}

  /** Holds `chunk`; throws (and holds nothing any more) when that would hold more than `maxBytes`. */
  append(chunk: Buffer): void {
    if ((this.held?.length ?? 0) + chunk.length > this.maxBytes) {
      this.held = undefined;
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.held = this.held ? Buffer.concat([this.held, chunk]) : chunk;
  }

  /** The next complete line that holds something, without its line ending and byte-order mark; `undefined` when none is complete. */
  next(): string | undefined {
    for (;;) {
      const held = this.held;
      const end = held?.indexOf(0x0a) ?? -1;
      if (held === undefined || end === -1) return undefined;
      let line = held.toString("utf8", 0, end);
      this.held = held.subarray(end + 1);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line.startsWith("\uFEFF")) line = line.slice(1);
      if (line.trim() !== "") return line;
    }
  }

  /** Drops everything held. */
  clear(): void {
    this.held = undefined;
  }
}
