/** What model providers accept as a tool name, and so what a `RuntimeTool` name must match. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const MAX_TOOL_NAME_LENGTH = 64;

/**
 * The name the model sees for the server's tool `serverName`: the host's
 * explicit mapping if there is one, else `prefix + serverName`, with every
 * character outside `[A-Za-z0-9_-]` replaced by `_` and cut to 64
 * characters (MCP allows dots and slashes; providers do not). Two server
 * names that end up the same are reported by the runtime as `duplicate_tool`.
 */
export function exposedToolName(serverName: string, prefix: string, mapping: Readonly<Record<string, string>>): string {
  if (Object.hasOwn(mapping, serverName)) return mapping[serverName]!;
  const safe = `${prefix}${serverName}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_TOOL_NAME_LENGTH);
  return safe.length > 0 ? safe : "_";
}
