import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { isList } from "@turnkit/agent-loop/internal";
import { McpConfigError } from "./mcp-config-error.js";
import { isRecord, quoted } from "./option-checks.js";
import type { McpRoot } from "./mcp-options.js";

/** A root as the server receives it in `roots/list`. */
export interface NormalisedRoot {
  readonly uri: string;
  readonly name?: string;
}

/**
 * The roots as `roots/list` answers them: an absolute path becomes a
 * `file://` URI (named after nothing; the host may name it), a `{ uri,
 * name? }` stays as it is. Throws {@link McpConfigError} naming `field`
 * and the index (and `where`, the call) for a relative path, a URI that
 * is not a `file://` URI, or a name that is not a string.
 */
export function normaliseRoots(
  roots: readonly McpRoot[],
  field: string,
  where = "createMcpExtension",
): readonly NormalisedRoot[] {
  if (!isList(roots))
    throw new McpConfigError({ field, where, problem: "must be an array of absolute paths or { uri, name? }" });
  return Object.freeze(
    roots.map((root: unknown, index): NormalisedRoot => {
      const at = `${field}[${index}]`;
      if (typeof root === "string") {
        if (!isAbsolute(root))
          throw new McpConfigError({
            field: at,
            where,
            problem: `must be an absolute path, got ${JSON.stringify(root)}`,
          });
        return Object.freeze({ uri: pathToFileURL(root).href });
      }
      const { uri, name } = (isRecord(root) ? root : {}) as {
        uri?: unknown;
        name?: unknown;
      };
      if (typeof uri !== "string" || !URL.canParse(uri) || !uri.startsWith("file://")) {
        throw new McpConfigError({
          field: `${at}.uri`,
          where,
          problem: `must be a file:// URI (the protocol allows no other roots), got ${quoted(uri)}`,
        });
      }
      if (name !== undefined && typeof name !== "string")
        throw new McpConfigError({ field: `${at}.name`, where, problem: `must be a string, got ${typeof name}` });
      return Object.freeze(name === undefined ? { uri } : { uri, name });
    }),
  );
}
