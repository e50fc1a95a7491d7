/**
 * The lines a stdio server writes to its stdout, one JSON-RPC message
 * each, framed as the MCP SDK's `ReadBuffer` frames them: bytes are held
 * until their newline, a `\r` before it is dropped, and holding more than
 * `maxBytes` (the unfinished line plus the chunk just read) fails with the
 * SDK's own words, which `isStdioMessageTooLarge` recognises. Unlike the
 * SDK, a byte-order mark at the start of a line (as .NET writes one before
 * its first output) is dropped, and a line that is empty or only blanks is
 * no line at all: neither is a message, and neither is a protocol error.
 *
 * The work is proportional to what is read: a chunk is searched for
 * newlines once, and a line's pieces are joined once, when it ends (a
 * message of 10 MB comes in some 160 pipe chunks; holding it as one
 * buffer, copied and searched again at each chunk, took half a second of
 * the host's thread, and five seconds for 30 MB).
 */
export class StdoutLines {
  /** The pieces of the line not ended yet, in order. */
  private pieces: Buffer[] = [];
  /** Lines ended and not taken by `next()` yet, without their newline; `taken` of them are taken. */
  private ended: Buffer[] = [];
  private taken = 0;
  /** The bytes held: the pieces, and the lines not taken with their newlines. */
  private heldBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Holds `chunk`; throws (and holds nothing any more) when that would hold more than `maxBytes`. */
  append(chunk: Buffer): void {
    if (this.heldBytes + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.heldBytes += chunk.length;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      this.pieces.push(chunk.subarray(start, end));
      this.ended.push(this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces));
      this.pieces = [];
      start = end + 1;
    }
    if (start < chunk.length) this.pieces.push(chunk.subarray(start));
  }

  /** The next complete line that holds something, without its line ending and byte-order mark; `undefined` when none is complete. */
  next(): string | undefined {
    while (this.taken < this.ended.length) {
      const bytes = this.ended[this.taken++]!;
      this.heldBytes -= bytes.length + 1;
      let line = bytes.toString("utf8");
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line.startsWith("\uFEFF")) line = line.slice(1);
      if (line.trim() !== "") return line;
    }
    this.ended = [];
    this.taken = 0;
    return undefined;
  }

  /** Drops everything held. */
  clear(): void {
    this.pieces = [];
    this.ended = [];
    this.taken = 0;
    this.heldBytes = 0;
  }
}
