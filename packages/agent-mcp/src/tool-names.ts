import { createHash } from "node:crypto";

/** What model providers accept as a tool name, and so what a `RuntimeTool` name must match. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const MAX_TOOL_NAME_LENGTH = 64;

/** `_` and six hex digits of the server's name: what tells apart two names that were made the same. */
const SUFFIX_LENGTH = 7;

/** How the host names the server's tools (the `toolPrefix` and `toolNames` options). */
export interface ToolNameOptions {
  readonly toolPrefix: string;
  readonly toolNames: Readonly<Record<string, string>>;
}

/**
 * The names the model sees for the server's tools `serverNames` (in the
 * same order): the host's explicit mapping if there is one, else
 * `prefix + serverName`, with every character outside `[A-Za-z0-9_-]`
 * replaced by `_` (MCP allows dots, slashes and any Unicode; providers do
 * not). A name made safe this way that would be cut to 64 characters, or
 * that would be the same as another tool's name of this server (`get.user`
 * and `get_user`, two names written in Chinese), ends in `_` and six hex
 * digits of the server's name instead, so one server's names never
 * collide: each is the same at every listing, as long as the server's list
 * keeps the names it collides with. Names the host mapped, and safe names
 * of at most 64 characters as the server gave them, are never changed: two
 * of those that are the same are reported by the runtime as `duplicate_tool`.
 */
export function exposedToolNames(serverNames: readonly string[], options: ToolNameOptions): string[] {
  const { toolPrefix, toolNames } = options;
  const candidates = serverNames.map((serverName) => {
    if (Object.hasOwn(toolNames, serverName)) return { name: toolNames[serverName]!, made: false };
    const wanted = `${toolPrefix}${serverName}`;
    const safe = wanted.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
    return { name: safe, made: safe !== wanted, cut: safe.length > MAX_TOOL_NAME_LENGTH };
  });
  const uses = new Map<string, number>();
  for (const { name } of candidates) uses.set(name, (uses.get(name) ?? 0) + 1);
  return candidates.map(({ name, made, cut }, index) => {
    if (!cut && !(made && uses.get(name)! > 1)) return name;
    const suffix = createHash("sha256")
      .update(serverNames[index]!)
      .digest("hex")
      .slice(0, SUFFIX_LENGTH - 1);
    return `${name.slice(0, MAX_TOOL_NAME_LENGTH - SUFFIX_LENGTH)}_${suffix}`;
  });
}
