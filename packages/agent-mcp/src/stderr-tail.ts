import { StringDecoder } from "node:string_decoder";

/**
 * Terminal escape sequences (colours, cursor moves) and the other control
 * characters a line may hold: what a server's logger adds for a terminal,
 * which an error message for a person or a model must not carry.
 */
const TERMINAL_CODES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** `line` without terminal codes and other control characters, trimmed: fit to quote in a message for a person. */
export function printableLine(line: string): string {
  return line.replace(TERMINAL_CODES, "").trim();
}

/**
 * The last characters a stdio server wrote to stderr: kept so a crash can
 * be explained ("exited: Error: cannot find module …") without printing the
 * server's logs into the host's terminal. Bytes are read as UTF-8 across
 * chunks, so a character split between two writes is kept whole.
 */
export class StderrTail {
  private text = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly maxChars: number) {}

  /** Adds a chunk, dropping the oldest characters beyond the limit. */
  append(chunk: string | Buffer): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    this.text = (this.text + text).slice(-this.maxChars);
  }

  /** Everything kept, as the server wrote it. */
  get value(): string {
    return this.text;
  }

  /** The last non-blank line without terminal codes, at most 300 characters, or `""`. */
  get lastLine(): string {
    const lines = this.text
      .split("\n")
      .map(printableLine)
      .filter((line) => line.length > 0);
    return (lines.at(-1) ?? "").slice(-300);
  }
}
