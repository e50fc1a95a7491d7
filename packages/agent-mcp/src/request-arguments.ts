import { McpConfigError } from "./mcp-config-error.js";
import { isRecord, kindOf } from "./option-checks.js";

/*
 * Checks of what the host passes to the extension's resource and prompt
 * methods, made before anything is sent: a value the protocol does not
 * take is the host's mistake, named as such, not an error the server
 * answers with (and the host reads as the server's).
 */

/** `value` as a URI or name of the protocol: a non-empty string; else throws naming `field` and the method `where`. */
export function requiredText(value: unknown, field: string, where: string): string {
  if (typeof value === "string" && value !== "") return value;
  const got = typeof value === "string" ? "an empty string" : kindOf(value);
  throw new McpConfigError({ field, where, problem: `must be a non-empty string, got ${got}` });
}

/** `value` as a listener: a function; else throws naming `field` and the method `where`. */
export function requiredFunction<T extends (...args: never[]) => unknown>(
  value: unknown,
  field: string,
  where: string,
): T {
  if (typeof value === "function") return value as T;
  throw new McpConfigError({ field, where, problem: `must be a function, got ${kindOf(value)}` });
}

/**
 * `value` as a prompt's arguments (the protocol takes strings only): an
 * object of strings, or `{}` when absent; else throws naming the first
 * bad argument (`args.count`) and the method `where`.
 */
export function promptArguments(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value))
    throw new McpConfigError({ field: "args", where, problem: `must be an object of strings, got ${kindOf(value)}` });
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string")
      throw new McpConfigError({
        field: `args.${key}`,
        where,
        problem: `must be a string (prompt arguments are strings), got ${kindOf(entry)}`,
      });
  }
  return value as Record<string, string>;
}
