/**
 * How a handler of the server's own requests (sampling, elicitation)
 * answers one with a JSON-RPC error: the SDK sends an error's `code` and
 * `message` as they are. Not the SDK's `McpError`, whose message already
 * starts with "MCP error <code>: ": the server would receive that prefix in
 * the message, and its SDK puts it before the message once more ("MCP error
 * -32602: MCP error -32602: …").
 */
export class ServerRequestRefusal extends Error {
  constructor(
    /** The JSON-RPC error code (the SDK's `ErrorCode`). */
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "ServerRequestRefusal";
  }
}
