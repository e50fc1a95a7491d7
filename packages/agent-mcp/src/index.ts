export { type McpToolDetails } from "./call-result.js";
export { createMcpExtension, type McpExtension } from "./create-mcp-extension.js";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_RESTARTS,
  MCP_CLIENT_INFO,
  SESSION_END_TIMEOUT_MS,
  STDERR_TAIL_CHARS,
} from "./defaults.js";
export { INVALID_MCP_OPTIONS, McpConfigError } from "./mcp-config-error.js";
export type { McpExtensionOptions, McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from "./mcp-options.js";
export { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
export type { McpServerState, McpServerStatus, McpToolSummary } from "./mcp-status.js";
