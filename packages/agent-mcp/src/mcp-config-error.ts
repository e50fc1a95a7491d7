import { assertStringArgument, hasBrand, readArgumentFields } from "@turnkit/agent-loop/internal";
import { TurnkitConfigError } from "@turnkit/agent-core";

const MCP_CONFIG_ERROR_MARKER = Symbol.for("turnkit.agent-mcp.McpConfigError");

/** Stable code of {@link McpConfigError}. */
export const INVALID_MCP_OPTIONS = "invalid_mcp_options";

/**
 * `createMcpExtension` was given options it cannot use: a bad id, a server
 * that is neither a command nor a URL, a timeout that is not a positive
 * integer, a header that is not a string, a key that is not an option (a
 * typo that would otherwise be ignored). Thrown synchronously by the
 * factory, before any process is started or socket opened. `field` is the
 * option's path (`server.command`, `callTimeoutMs`, `toolNames.search`).
 * Also a bad argument of an extension method (`setRoots` throws it; the
 * resource and prompt methods reject with it, `field` `uri`, `args.count`,
 * before anything is sent); the message then names the method.
 * It is a `TurnkitConfigError`, so `TurnkitConfigError.isInstance` (and
 * `TurnkitError.isInstance`) recognise it too.
 */
export class McpConfigError extends TurnkitConfigError<typeof INVALID_MCP_OPTIONS> {
  /** The path of the offending option, as written in the options object. */
  readonly field: string;
  /** Brand `isInstance` checks; keyed by `Symbol.for`, so it matches across package copies. */
  readonly [MCP_CONFIG_ERROR_MARKER] = true;

  /**
   * `where` names the call that was given the option; `createMcpExtension`
   * unless said otherwise. Throws a `TypeError` naming the argument when
   * `options` is no object, one of its fields cannot be read, or `field`,
   * `problem` or a given `where` is no string.
   */
  constructor(options: { field: string; problem: string; where?: string }) {
    const { field, problem, where } = readArgumentFields(options, "McpConfigError", "options", [
      "field",
      "problem",
      "where",
    ]);
    assertStringArgument(field, "McpConfigError", "options.field");
    assertStringArgument(problem, "McpConfigError", "options.problem");
    if (where !== undefined) assertStringArgument(where, "McpConfigError", "options.where");
    super(INVALID_MCP_OPTIONS, `${where ?? "createMcpExtension"}: ${field} ${problem}`);
    this.name = "McpConfigError";
    this.field = field;
  }

  /** True for an McpConfigError from any copy of the package. */
  static override isInstance(value: unknown): value is McpConfigError {
    return TurnkitConfigError.isInstance(value) && hasBrand(value, MCP_CONFIG_ERROR_MARKER);
  }
}
