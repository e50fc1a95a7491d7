import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { withoutNullMessageMembers } from "./null-fields.js";
import { readServerJson } from "./server-json.js";
import { answeredId, isShapedAsRequest, malformedAnswer, schemaProblem } from "./unreadable-message.js";
import { printableLine } from "./stderr-tail.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** The most characters of a stray line the host's warning quotes. */
const STRAY_EXCERPT_CHARS = 200;

/**
 * What one line of a stdio server's stdout is:
 * - `messages`: a JSON-RPC message, or a batch of them (a JSON array, which
 *   protocol version 2025-03-26 allows and the SDK's Streamable HTTP client
 *   reads too), in order; members written as null where the protocol takes
 *   only absent ones are read as absent (see `withoutNullMessageMembers`),
 *   and Python's `NaN` and `Infinity` as null (see `readServerJson`);
 * - `stray`: output that is no message for this client: not JSON (a
 *   banner, "Server running on stdio", a print left in), or JSON that does
 *   not claim to be JSON-RPC (a structured log line, `{"level":30,"msg":…}`)
 *   (`what`: `not_json_rpc`); or a JSON-RPC error whose id is null, which
 *   answers no request (`unaddressed_error`): JSON-RPC's answer to a
 *   message the server could not read, and what servers written by hand
 *   send in reply to a notification they do not know
 *   (`notifications/initialized`); the SDK's client reports and skips it;
 *   A message the schema refuses whose place is still known is no reason
 *   to lose the session: an answer to an id the client can have (a string,
 *   an integer JavaScript holds exactly) is read as a marked error answer
 *   to it (`malformedAnswer`: that request fails at once), and a request
 *   or notification (an id past 2^53, params of the wrong kind) is left
 *   out, its problem in `unreadable`;
 * - `malformed`: JSON that claims to be JSON-RPC (an object with a
 *   `jsonrpc` member, or an array holding one) but is not a valid message
 *   and not one of those (an answer whose id is no string or number, or
 *   with neither result nor error; a batch with any such entry): `error`
 *   is the schema's error, which `isMalformedMessageError` recognises. A
 *   batch's errors with a null id are left out of it.
 *
 * Stray output is what the MCP SDK's own stdio client and the hosts people
 * try servers with skip; a malformed message may have been an answer,
 * which can then never be matched to its request.
 */
export type StdoutLine =
  | {
      readonly kind: "messages";
      readonly messages: readonly JSONRPCMessage[];
      /** The schema's problem with the first request or notification of the line that was left out. */
      readonly unreadable?: string;
    }
  | { readonly kind: "stray"; readonly what: StrayOutput }
  | { readonly kind: "malformed"; readonly error: Error };

/**
 * What a stray line is: no JSON-RPC at all; JSON shaped as an answer (an
 * `id` and a `result` or an `error`) but without the `jsonrpc` member, as
 * a server written by hand may forget it (its requests then wait for
 * their timeouts, so the host is told apart); or a JSON-RPC error that
 * answers no request (its id is null). And a message the protocol's
 * schema refuses that answers no request the client can place
 * (`unreadable_message`): over stdio a request or notification, over
 * Streamable HTTP anything but an answer to its POST's request; it breaks
 * nothing else.
 * And a stdio message written over several lines (`split_message`:
 * pretty-printed JSON, which stdio framing does not allow), which is read
 * all the same.
 */
export type StrayOutput =
  | "not_json_rpc"
  | "answer_without_version"
  | "unaddressed_error"
  | "unreadable_message"
  | "split_message";

/** Reads one line of a stdio server's stdout (see {@link StdoutLine}). Never throws. */
export function readStdoutLine(line: string): StdoutLine {
  let parsed: unknown;
  try {
    parsed = readServerJson(line).value;
  } catch {
    return { kind: "stray", what: "not_json_rpc" };
  }
  const entries = (Array.isArray(parsed) ? parsed : [parsed]).map(withoutNullMessageMembers);
  if (!entries.some(carriesJsonRpc))
    return { kind: "stray", what: entries.some(isShapedAsAnswer) ? "answer_without_version" : "not_json_rpc" };
  // Read as an answer, a null id would be taken for request 0 (the handshake's), as the SDK matches ids by number.
  const addressed = entries.filter((entry) => !isUnaddressedError(entry));
  if (addressed.length === 0) return { kind: "stray", what: "unaddressed_error" };
  const messages: JSONRPCMessage[] = [];
  let unreadable: string | undefined;
  for (const entry of addressed) {
    const result = JSONRPCMessageSchema.safeParse(entry);
    const id = result.success ? undefined : answeredId(entry);
    if (result.success) messages.push(result.data);
    else if (id !== undefined) messages.push(malformedAnswer(id, schemaProblem(entry)));
    else if (isShapedAsRequest(entry)) unreadable ??= schemaProblem(entry);
    else return { kind: "malformed", error: result.error };
  }
  return { kind: "messages", messages, ...(unreadable !== undefined && { unreadable }) };
}

function carriesJsonRpc(value: unknown): value is { readonly jsonrpc: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "jsonrpc" in value;
}

/** An object with an `id` and a `result` or an `error`: an answer, but for its `jsonrpc` member. */
function isShapedAsAnswer(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return "id" in value && ("result" in value || "error" in value);
}

/** A JSON-RPC error with a null id: it answers no request. */
function isUnaddressedError(value: unknown): boolean {
  if (!carriesJsonRpc(value)) return false;
  const { id, error } = value as { id?: unknown; error?: unknown };
  return id === null && typeof error === "object" && error !== null && !("result" in value) && !("method" in value);
}

/**
 * Tells the host's logger (`warn`) that the server wrote stray output of
 * kind `what` to its stdout (the caller tells once per connection and
 * kind): the line is quoted (at most 200 characters, without terminal
 * codes) and the server named. A logger that throws is ignored.
 */
export function warnOfStrayOutput(settings: McpSettings, line: string, what: StrayOutput, problem?: string): void {
  const printable = printableLine(line);
  // Cut before a character outside the BMP rather than through it.
  const cut = /[\uD800-\uDBFF]/.test(printable[STRAY_EXCERPT_CHARS - 1] ?? "")
    ? STRAY_EXCERPT_CHARS - 1
    : STRAY_EXCERPT_CHARS;
  const excerpt = printable.length > STRAY_EXCERPT_CHARS ? `${printable.slice(0, cut)}…` : printable;
  const message = strayOutputMessage(settings.id, what, excerpt, problem);
  try {
    settings.logger?.warn?.(message, { server: settings.id, line: excerpt });
  } catch {
    // The host's logger failing is not the server's problem.
  }
}

function strayOutputMessage(serverId: string, what: StrayOutput, excerpt: string, problem = "its schema"): string {
  switch (what) {
    case "not_json_rpc":
      return `MCP server "${serverId}" wrote to its stdout a line that is no JSON-RPC message; it is ignored, and so are any more such lines of this connection (a stdio server's logs belong on stderr): ${excerpt}`;
    case "answer_without_version":
      return `MCP server "${serverId}" wrote an answer without its "jsonrpc": "2.0" member, which is no JSON-RPC message; it is ignored, and so are any more such answers of this connection (the request it answers waits for its timeout): ${excerpt}`;
    case "unaddressed_error":
      return `MCP server "${serverId}" wrote a JSON-RPC error that answers no request (its id is null: a message it could not read, or a notification it does not know); it is ignored, and so are any more such errors of this connection: ${excerpt}`;
    case "split_message":
      return `MCP server "${serverId}" wrote a JSON-RPC message ${problem} (pretty-printed JSON), which stdio does not allow (a message is one line; other clients drop such lines); it is read all the same, and so are any more such messages of this connection: ${excerpt}`;
    case "unreadable_message":
      return `MCP server "${serverId}" sent a message that is no valid JSON-RPC message (${problem}); it is ignored, and so are any more such messages of this connection: ${excerpt}`;
    default: {
      const unreachable: never = what;
      return unreachable;
    }
  }
}
