import { readServerJson } from "./server-json.js";

/**
 * Watches the lines of a stdio server's stdout that are no message on
 * their own, for a JSON-RPC message written over several of them: a line
 * that starts an object or array and is no JSON by itself, then the lines
 * that follow it until its brackets close (counted outside strings). A
 * line that is a message on its own, more than `maxBytes` held, or lines
 * that close into something that is not JSON claiming JSON-RPC, end the
 * watch. Work is proportional to the bytes read.
 */
export class SplitMessageWatch {
  private held: string[] = [];
  private bytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxBytes: number) {}

  /** A line that is no message on its own; the message it completes (its lines joined), if it completes one. */
  stray(line: string): { readonly text: string; readonly lines: number } | undefined {
    if (this.held.length === 0 && !startsUnfinishedJson(line)) return undefined;
    this.held.push(line);
    this.bytes += line.length;
    if (this.bytes > this.maxBytes) return void this.reset();
    this.count(line);
    if (this.depth > 0) return undefined;
    const lines = this.held.length;
    const text = this.held.join("\n");
    this.reset();
    return claimsJsonRpc(text) ? { text, lines } : undefined;
  }

  /** A line was a message on its own: anything held was no message. */
  reset(): void {
    this.held = [];
    this.bytes = 0;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
  }

  private count(line: string): void {
    for (const char of line) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === "\\") this.escaped = true;
        else if (char === '"') this.inString = false;
      } else if (char === '"') this.inString = true;
      else if (char === "{" || char === "[") this.depth++;
      else if (char === "}" || char === "]") this.depth--;
    }
  }
}

function startsUnfinishedJson(line: string): boolean {
  const trimmed = line.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return false;
  try {
    readServerJson(line);
    return false;
  } catch {
    return true;
  }
}

function claimsJsonRpc(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = readServerJson(text).value;
  } catch {
    return false;
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  return entries.some((entry) => typeof entry === "object" && entry !== null && "jsonrpc" in entry);
}
