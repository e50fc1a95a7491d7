import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { printableLine } from "./stderr-tail.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** The most characters of a stray line the host's warning quotes. */
const STRAY_EXCERPT_CHARS = 200;

/**
 * What one line of a stdio server's stdout is:
 * - `messages`: a JSON-RPC message, or a batch of them (a JSON array, which
 *   protocol version 2025-03-26 allows and the SDK's Streamable HTTP client
 *   reads too), in order;
 * - `stray`: output that is no message at all: not JSON (a banner,
 *   "Server running on stdio", a print left in), or JSON that does not
 *   claim to be JSON-RPC (a structured log line, `{"level":30,"msg":…}`);
 * - `malformed`: JSON that claims to be JSON-RPC (an object with a
 *   `jsonrpc` member, or an array holding one) but is not a valid message
 *   (a response with a bad id, or with neither result nor error; a batch
 *   with any such entry): `error` is the schema's error, which
 *   `isMalformedMessageError` recognises.
 *
 * Stray output is what the MCP SDK's own stdio client and the hosts people
 * try servers with skip; a malformed message may have been an answer,
 * which can then never be matched to its request.
 */
export type StdoutLine =
  | { readonly kind: "messages"; readonly messages: readonly JSONRPCMessage[] }
  | { readonly kind: "stray" }
  | { readonly kind: "malformed"; readonly error: Error };

/** Reads one line of a stdio server's stdout (see {@link StdoutLine}). Never throws. */
export function readStdoutLine(line: string): StdoutLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { kind: "stray" };
  }
  const entries: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  if (!entries.some(carriesJsonRpc)) return { kind: "stray" };
  const messages: JSONRPCMessage[] = [];
  for (const entry of entries) {
    const result = JSONRPCMessageSchema.safeParse(entry);
    if (!result.success) return { kind: "malformed", error: result.error };
    messages.push(result.data);
  }
  return { kind: "messages", messages };
}

function carriesJsonRpc(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "jsonrpc" in value;
}

/**
 * Tells the host's logger (`warn`), once per connection, that the server
 * writes stray output to its stdout: the line is quoted (at most 200
 * characters, without terminal codes) and the server named. Later stray
 * lines of the same connection are dropped silently. A logger that throws
 * is ignored.
 */
export function warnOfStrayOutput(settings: McpSettings, line: string): void {
  const printable = printableLine(line);
  // Cut before a character outside the BMP rather than through it.
  const cut = /[\uD800-\uDBFF]/.test(printable[STRAY_EXCERPT_CHARS - 1] ?? "")
    ? STRAY_EXCERPT_CHARS - 1
    : STRAY_EXCERPT_CHARS;
  const excerpt = printable.length > STRAY_EXCERPT_CHARS ? `${printable.slice(0, cut)}…` : printable;
  try {
    settings.logger?.warn?.(
      `MCP server "${settings.id}" wrote to its stdout a line that is no JSON-RPC message; it is ignored, and so are any more such lines of this connection (a stdio server's logs belong on stderr): ${excerpt}`,
      { server: settings.id, line: excerpt },
    );
  } catch {
    // The host's logger failing is not the server's problem.
  }
}
