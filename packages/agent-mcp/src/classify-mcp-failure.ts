import { ErrorCode, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { describeMalformed, isMalformedMessageError } from "./malformed-message.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { malformedAnswerProblem } from "./unreadable-message.js";
import { UnansweredRequestError } from "./unanswered-json.js";
import { isUnansweredStreamMarker } from "./unanswered-stream.js";

/** The SDK client's error for a handshake answered with a protocol version it does not speak (it has no error type for it). */
const UNSUPPORTED_VERSION = /^Server's protocol version is not supported: (.*)$/;

/** The SDK client's message when the connection closed with requests in flight. */
const SDK_CONNECTION_CLOSED = ["Connection closed"];
/** The SDK client's messages when its own timeout ended a request (`data` then says which timeout). */
const SDK_TIMEOUTS = ["Request timed out", "Maximum total timeout exceeded"];

/**
 * Whether `error` is the SDK client's own failure with `code` (one of
 * `messages`, with the `data` the SDK gives it), not a JSON-RPC error the
 * server answered with the same code. The SDK has no type for its own, so
 * its messages are matched, here only.
 */
function isSdkError(error: McpError, code: number, messages: readonly string[]): boolean {
  if (error.code !== code || !messages.some((message) => error.message === `MCP error ${code}: ${message}`))
    return false;
  const { data } = error;
  if (code === ErrorCode.ConnectionClosed) return data === undefined;
  if (typeof data !== "object" || data === null) return false;
  return "timeout" in data || "maxTotalTimeout" in data;
}

/**
 * The request name, for {@link FailureContext.request}, of the notification
 * that ends the handshake once `initialize` is answered: a server that
 * refuses it with an HTTP status is named as refusing it, not as
 * unreachable for `initialize`, which it answered.
 */
export const INITIALIZED_NOTIFICATION = "notifications/initialized";

/** What was being done when the failure happened, for the message. */
export interface FailureContext {
  /** The extension id. */
  readonly serverId: string;
  /** The request, as the message names it: `tools/call "search"`, `initialize`, `tools/list`. */
  readonly request: string;
  /** The timeout that applied to the request, in ms. */
  readonly timeoutMs: number;
  /** Why the connection ended, when it ended before the request was answered. */
  readonly lost: McpServerError | undefined;
}

/**
 * The one place that turns what the SDK throws into an {@link McpServerError}
 * with a stable code. Never throws; an `McpServerError` passes through.
 */
export function classifyMcpFailure(error: unknown, context: FailureContext): McpServerError {
  if (McpServerError.isInstance(error)) return error;
  const { serverId, request } = context;
  const make = (code: McpServerErrorCode, message: string) =>
    new McpServerError({ code, serverId, message, cause: error });
  if (error instanceof McpError && isUnansweredStreamMarker(error.data))
    return make(
      McpServerErrorCode.ProtocolError,
      `answered ${request} with an event stream that ended without its answer`,
    );
  const malformed = error instanceof McpError ? malformedAnswerProblem(error.data) : undefined;
  if (malformed !== undefined)
    return make(McpServerErrorCode.ProtocolError, `answered ${request} with a malformed message: ${malformed}`);
  if (error instanceof McpError) {
    // The SDK's own failures share their codes with errors a server may answer (-32000 and -32001 are in the
    // range JSON-RPC leaves to servers): only the SDK's own are the connection's end or a timeout.
    if (isSdkError(error, ErrorCode.ConnectionClosed, SDK_CONNECTION_CLOSED))
      return context.lost ?? make(McpServerErrorCode.ServerExited, `closed the connection before answering ${request}`);
    if (isSdkError(error, ErrorCode.RequestTimeout, SDK_TIMEOUTS))
      return make(McpServerErrorCode.CallTimeout, `did not answer ${request} within ${context.timeoutMs} ms`);
    return make(McpServerErrorCode.ServerError, `answered ${request} with an error: ${jsonRpcErrorText(error)}`);
  }
  if (isMalformedMessageError(error)) {
    return make(
      McpServerErrorCode.ProtocolError,
      `answered ${request} with a malformed message: ${describeMalformed(error as Error)}`,
    );
  }
  if (error instanceof UnansweredRequestError)
    return make(McpServerErrorCode.ProtocolError, `answered ${request} with JSON holding ${error.held}`);
  if (isStreamableHttpError(error)) {
    const status = error.code !== undefined && error.code > 0 ? ` (HTTP ${error.code})` : "";
    const text = error.message.slice(STREAMABLE_HTTP_ERROR_PREFIX.length);
    if (request === INITIALIZED_NOTIFICATION && status !== "")
      return make(McpServerErrorCode.TransportError, `answered initialize, then refused ${request}${status}: ${text}`);
    return make(McpServerErrorCode.TransportError, `could not be reached for ${request}${status}: ${text}`);
  }
  const text = messageOf(error);
  // Only "the connection is gone" is explained by why it went; any other failure is reported as itself.
  if (text === "Not connected")
    return context.lost ?? make(McpServerErrorCode.ServerExited, `is not connected (${request} was not sent)`);
  // The SDK client's own refusal of the handshake's answer: the server was reached, and speaks another version.
  const version = UNSUPPORTED_VERSION.exec(text);
  if (version)
    return make(
      McpServerErrorCode.ProtocolError,
      `answered ${request} with protocol version ${version[1]}, which this client does not speak (it speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  return make(McpServerErrorCode.TransportError, `could not be reached for ${request}: ${text}`);
}

/** Whether a classified failure is an answer the server gave that the protocol's schema refused (see `malformedAnswer`). */
export function isMalformedAnswer(failure: McpServerError): boolean {
  return failure.cause instanceof McpError && malformedAnswerProblem(failure.cause.data) !== undefined;
}

/** Whether a classified failure is a request whose event stream ended without its answer. */
export function isUnansweredStream(failure: McpServerError): boolean {
  return failure.cause instanceof McpError && isUnansweredStreamMarker(failure.cause.data);
}

/**
 * Whether a classified failure means the session is gone, so that the
 * connection is lost and a later turn makes a new one: the process exited
 * or the transport closed (`server_exited`), or the server could not be
 * reached (`transport_error`). Not so an HTTP error status the server (or a
 * proxy before it) answered one request with, a 502 or a 413: that request
 * failed, the session goes on. Except 404, which the protocol reserves for
 * a session the server ended (the client must start a new one), and 401
 * and 403, which a new connection authorizes again.
 */
export function losesConnection(error: McpServerError): boolean {
  if (error.code === McpServerErrorCode.ServerExited) return true;
  if (error.code !== McpServerErrorCode.TransportError) return false;
  const { cause } = error;
  if (!isStreamableHttpError(cause)) return true;
  return cause.code === 404 || cause.code === 401 || cause.code === 403;
}

/**
 * The HTTP status a request was refused with, when `error` is a classified
 * failure of one (`transport_error` from the Streamable HTTP transport);
 * `undefined` for anything else.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (!McpServerError.isInstance(error) || error.code !== McpServerErrorCode.TransportError) return undefined;
  const { cause } = error;
  return isStreamableHttpError(cause) ? cause.code : undefined;
}

/**
 * A JSON-RPC error as `MCP error <code>: <message>`, once. The SDK puts
 * that prefix before the message it received, and a server written with
 * the SDK sends its own error's message, prefix included: the prefix
 * would appear twice.
 */
function jsonRpcErrorText(error: McpError): string {
  const prefix = /^MCP error -?\d+: /;
  let message = error.message;
  while (prefix.test(message)) message = message.replace(prefix, "");
  return `MCP error ${error.code}: ${message}`;
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  // Node's fetch hides the socket error ("ECONNREFUSED") in the cause of "fetch failed".
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/**
 * True for Node's fetch failing because the server closed the socket
 * before answering ("other side closed"), as happens to a pooled
 * keep-alive socket of a server that restarted or shut an idle
 * connection, before the client saw it close.
 */
export function isStaleSocketFailure(error: unknown): boolean {
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  return (
    error instanceof TypeError &&
    error.message === "fetch failed" &&
    cause instanceof Error &&
    (cause as { code?: unknown }).code === "UND_ERR_SOCKET"
  );
}

/**
 * True for the Streamable HTTP transport's reports of a response or event
 * stream that broke (the server went away mid-answer). The SDK only reports
 * them; a request waiting on that stream would wait for its timeout. The SDK
 * has no error type for them, so its messages are matched, here only.
 */
export function isBrokenStreamError(error: Error): boolean {
  return /^(SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts)/.test(error.message);
}

const STREAMABLE_HTTP_ERROR_PREFIX = "Streamable HTTP error: ";

/**
 * True for the Streamable HTTP transport's report that the server answered
 * a request to open the session's event stream with an HTTP error status:
 * the server is up. The SDK reports it, then, when it was reopening a
 * stream that broke, "Failed to reconnect SSE stream: " and the same text.
 */
export function isStreamRefusal(error: unknown): error is Error & { code: number | undefined } {
  return (
    isStreamableHttpError(error) && error.message.startsWith(`${STREAMABLE_HTTP_ERROR_PREFIX}Failed to open SSE stream`)
  );
}

/**
 * Whether a connection was lost because its broken event stream could not
 * be reopened and the server said why with an HTTP status (a 404: it
 * forgot the session, having restarted): the server is up, and only the
 * session is gone.
 */
export function lostByStreamRefusal(error: McpServerError): boolean {
  return error.code === McpServerErrorCode.TransportError && isStreamRefusal(error.cause);
}

/**
 * The SDK's `StreamableHTTPError` (an HTTP status in `code`), recognised by
 * shape so that this file does not load the HTTP transport (see
 * `createTransport`).
 */
function isStreamableHttpError(error: unknown): error is Error & { code: number | undefined } {
  return (
    error instanceof Error &&
    error.message.startsWith(STREAMABLE_HTTP_ERROR_PREFIX) &&
    ["number", "undefined"].includes(typeof (error as { code?: unknown }).code)
  );
}
