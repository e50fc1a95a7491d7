/**
 * The last characters a stdio server wrote to stderr: kept so a crash can
 * be explained ("exited: Error: cannot find module …") without printing the
 * server's logs into the host's terminal.
 */
export class StderrTail {
  private text = "";

  constructor(private readonly maxChars: number) {}

  /** Adds a chunk, dropping the oldest characters beyond the limit. */
  append(chunk: string | Buffer): void {
    this.text = (this.text + chunk.toString()).slice(-this.maxChars);
  }

  /** Everything kept. */
  get value(): string {
    return this.text;
  }

  /** The last non-blank line, at most 300 characters, or `""`. */
  get lastLine(): string {
    const lines = this.text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.length > 0);
    return (lines.at(-1) ?? "").slice(-300);
  }
}
