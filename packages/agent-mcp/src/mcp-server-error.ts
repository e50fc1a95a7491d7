import {
  assertOneOfArgument,
  assertStringArgument,
  errorOptionsOf,
  hasBrand,
  readArgumentFields,
} from "@turnkit/agent-loop/internal";
import { TurnkitError } from "@turnkit/agent-core";

const MCP_SERVER_ERROR_MARKER = Symbol.for("turnkit.agent-mcp.McpServerError");

/** Why talking to an MCP server failed; the `code` of {@link McpServerError}. */
export const McpServerErrorCode = {
  /** The server could not be started, refused the handshake, or did not list its tools in time. */
  ConnectFailed: "connect_failed",
  /** The connection ended: a stdio process exited, was killed or closed its stdout or stdin, or the transport closed. */
  ServerExited: "server_exited",
  /** A call got no answer (and no progress) within the call timeout; it was cancelled. */
  CallTimeout: "call_timeout",
  /** The server wrote something that is not MCP: a malformed JSON-RPC message, or a malformed result. */
  ProtocolError: "protocol_error",
  /**
   * The server sent a message longer than `maxMessageBytes`: it was not
   * read, the calls in flight failed, and the connection was closed.
   */
  MessageTooLarge: "message_too_large",
  /** The server answered the request with a JSON-RPC error (an unknown tool, invalid arguments, a crash in its handler). */
  ServerError: "server_error",
  /** An HTTP request to the server failed (refused, reset, an error status). */
  TransportError: "transport_error",
  /** No call was sent: the server is down and will not be restarted, or the extension was disposed. */
  Unavailable: "server_unavailable",
} as const;

/** One of the {@link McpServerErrorCode} strings. */
export type McpServerErrorCode = (typeof McpServerErrorCode)[keyof typeof McpServerErrorCode];

/**
 * A failure of one MCP server, named by the extension id. A tool call that
 * fails this way is answered with an error result carrying `message`
 * (the turn goes on); `connect()` rejects with it; the status's `lastError`
 * holds the latest. Always begins with `MCP server "<id>"`.
 */
export class McpServerError extends TurnkitError {
  /** Which failure; one of {@link McpServerErrorCode}. */
  declare readonly code: McpServerErrorCode;
  /** The extension id, which names the server. */
  readonly serverId: string;
  /** Brand `isInstance` checks; keyed by `Symbol.for`, so it matches across package copies. */
  readonly [MCP_SERVER_ERROR_MARKER] = true;

  /**
   * Throws a `TypeError` naming the argument when `options` is no object,
   * one of its fields cannot be read, `code` is none of
   * {@link McpServerErrorCode}, or `serverId` or `message` is no string.
   */
  constructor(options: { code: McpServerErrorCode; serverId: string; message: string; cause?: unknown }) {
    const where = "McpServerError";
    const fields = readArgumentFields(options, where, "options", ["code", "serverId", "message", "cause"]);
    const { code, serverId, message, cause } = fields;
    assertOneOfArgument(code, Object.values(McpServerErrorCode), where, "options.code");
    assertStringArgument(serverId, where, "options.serverId");
    assertStringArgument(message, where, "options.message");
    super(code, `MCP server "${serverId}" ${message}`, errorOptionsOf(cause));
    this.name = "McpServerError";
    this.serverId = serverId;
  }

  /** True for an McpServerError from any copy of the package. */
  static override isInstance(value: unknown): value is McpServerError {
    return TurnkitError.isInstance(value) && hasBrand(value, MCP_SERVER_ERROR_MARKER);
  }
}
