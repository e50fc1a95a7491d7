export { type McpToolDetails } from "./call-result.js";
export { createMcpExtension, type McpExtension } from "./create-mcp-extension.js";
export {
  DEFAULT_CALL_MAX_DURATION_MS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_RESTART_POLICY,
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  MCP_CLIENT_INFO,
  SESSION_END_TIMEOUT_MS,
  STDERR_TAIL_CHARS,
} from "./defaults.js";
export { INVALID_MCP_OPTIONS, McpConfigError } from "./mcp-config-error.js";
export type {
  McpElicitationPolicy,
  McpExtensionOptions,
  McpHttpServerConfig,
  McpLogLevel,
  McpRestartPolicy,
  McpRoot,
  McpSamplingPolicy,
  McpServerConfig,
  McpStdioServerConfig,
} from "./mcp-options.js";
export type { McpOAuthOptions, McpOAuthStore } from "./oauth-options.js";
export { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
export type { McpServerState, McpServerStatus, McpToolHints, McpToolSummary } from "./mcp-status.js";
