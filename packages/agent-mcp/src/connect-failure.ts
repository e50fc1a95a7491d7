import { classifyMcpFailure } from "./classify-mcp-failure.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { spawnFailure } from "./mcp-transport.js";
import type { StderrTail } from "./stderr-tail.js";
import type { McpSettings } from "./validate-mcp-options.js";

/**
 * Why a connection could not be made, as the `connect_failed` error
 * `McpConnection.open` rejects with: a stdio command that could not be
 * spawned names the command (or the working directory that is missing);
 * anything else is the failure of `initialize`, classified, explained by
 * `lost` when the connection was lost meanwhile. The server's last stderr
 * line is added when the message does not hold it already. Never throws.
 */
export function connectFailure(
  settings: McpSettings,
  stderr: StderrTail,
  lost: McpServerError | undefined,
  error: unknown,
): McpServerError {
  const { transport } = settings;
  const original = McpServerError.isInstance(error) ? error.cause : error;
  let detail: string;
  if (transport.kind === "stdio" && isSpawnError(original)) {
    detail = `could not start ${JSON.stringify(transport.command)}: ${spawnFailure(original, transport.cwd)}`;
  } else {
    const failure = McpServerError.isInstance(error)
      ? error
      : classifyMcpFailure(error, {
          serverId: settings.id,
          request: "initialize",
          timeoutMs: settings.connectTimeoutMs,
          lost,
        });
    const prefix = `MCP server "${settings.id}" `;
    detail = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
  }
  const lastLine = stderr.lastLine;
  const hint = lastLine && !detail.includes(lastLine) ? ` (its last stderr line: ${lastLine})` : "";
  return new McpServerError({
    code: McpServerErrorCode.ConnectFailed,
    serverId: settings.id,
    message: `could not connect: ${detail}${hint}`,
    cause: original ?? error,
  });
}

/** Node's error for a command that could not be spawned (`ENOENT`, `EACCES`). */
function isSpawnError(error: unknown): error is Error {
  const syscall = error instanceof Error ? (error as { syscall?: unknown }).syscall : undefined;
  return typeof syscall === "string" && syscall.startsWith("spawn");
}
