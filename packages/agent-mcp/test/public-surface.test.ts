/**
 * The public surface of `@turnkit/agent-mcp`: every value and type its
 * entry exports. A name added, removed or retyped fails this test until the
 * lists below and the README say so, so the API changes only on purpose.
 */
import { describePublicSurface } from "../../../scripts/public-surface-test.js";

describePublicSurface({
  specifier: "@turnkit/agent-mcp",
  entry: new URL("../src/index.ts", import.meta.url),
  readme: new URL("../README.md", import.meta.url),
  readmeAlsoMentions: [
    "Extension",
    "connect",
    "dispose",
    "status",
    "subscribe",
    "toolHints",
    "client",
    "setRoots",
    "listResources",
    "readResource",
    "resourceAsContext",
    "subscribeResource",
    "listPrompts",
    "getPrompt",
    "expandPrompt",
  ],
  values: [
    "DEFAULT_CALL_MAX_DURATION_MS",
    "DEFAULT_CALL_TIMEOUT_MS",
    "DEFAULT_CONNECT_TIMEOUT_MS",
    "DEFAULT_RESTART_POLICY",
    "DEFAULT_SAMPLING_MAX_TOKENS",
    "DEFAULT_SHUTDOWN_GRACE_MS",
    "INVALID_MCP_OPTIONS",
    "MCP_CLIENT_INFO",
    "McpConfigError",
    "McpServerError",
    "McpServerErrorCode",
    "SESSION_END_TIMEOUT_MS",
    "STDERR_TAIL_CHARS",
    "createMcpExtension",
  ],
  types: [
    "McpConfigError",
    "McpExtension",
    "McpExtensionOptions",
    "McpHttpServerConfig",
    "McpLogLevel",
    "McpRestartPolicy",
    "McpRoot",
    "McpSamplingPolicy",
    "McpServerConfig",
    "McpServerError",
    "McpServerErrorCode",
    "McpServerState",
    "McpServerStatus",
    "McpStdioServerConfig",
    "McpToolDetails",
    "McpToolHints",
    "McpToolSummary",
  ],
});
