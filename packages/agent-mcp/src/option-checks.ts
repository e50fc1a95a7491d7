import { isList, isRecord, isUnreadable } from "@turnkit/agent-loop/internal";
import { McpConfigError } from "./mcp-config-error.js";

/*
 * The small checks every part of the options' validation uses; each
 * throws an McpConfigError naming the field.
 */

/** Throws for the first key of `value` that is not in `known`, naming it under `path` and listing the options. */
export function rejectUnknownKeys(value: Record<string, unknown>, known: Record<string, true>, path: string): void {
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(known, key)) continue;
    throw new McpConfigError({
      field: `${path}${key}`,
      problem: `is not an option; the options are ${Object.keys(known).join(", ")}`,
    });
  }
}

/** An integer of at least `minimum`, or `fallback` when absent. */
export function count(value: unknown, field: string, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new McpConfigError({
      field,
      problem: `must be an integer of at least ${minimum}, got ${quoted(value)}`,
    });
  }
  return value;
}

/** A string, or `undefined` when absent. */
export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new McpConfigError({ field, problem: `must be a string, got ${kindOf(value)}` });
  return value;
}

/** An object of strings (headers, environment), copied; `{}` when absent. */
export function stringRecord(value: unknown, field: string): Readonly<Record<string, string>> {
  if (value === undefined) return {};
  if (!isRecord(value))
    throw new McpConfigError({ field, problem: `must be an object of strings, got ${kindOf(value)}` });
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string")
      throw new McpConfigError({ field: `${field}.${key}`, problem: `must be a string, got ${kindOf(entry)}` });
  }
  return { ...(value as Record<string, string>) };
}

/** True for a plain object (not null, not an array, not a revoked proxy, of which nothing can be read). */
export { isRecord };

/** What a value is, for error messages: `null`, `an array`, `an unreadable value` (a revoked proxy) or its `typeof`. */
/**
 * `value` as JSON text for a message that quotes it, or its kind (see
 * {@link kindOf}) when it has none: a bigint, a symbol, a value that
 * cannot be read. Never throws.
 */
export function quoted(value: unknown): string {
  try {
    return JSON.stringify(value) ?? kindOf(value);
  } catch {
    return kindOf(value);
  }
}

/**
 * `value` as text, quoted as JSON (`"5"`), or its kind when it is an object
 * (never made text: a list of length 2^32 - 1 would be joined entry by
 * entry) or cannot become text. Never throws.
 */
export function quotedText(value: unknown): string {
  if (typeof value === "object" && value !== null) return kindOf(value);
  try {
    return JSON.stringify(String(value));
  } catch {
    return kindOf(value);
  }
}

/** `value` parsed as a URL when it is a string or a `URL`; `undefined` for anything else or a string that is no URL. Never throws. */
export function parsedUrl(value: unknown): URL | undefined {
  try {
    return typeof value === "string" || value instanceof URL ? new URL(value) : undefined;
  } catch {
    return undefined;
  }
}

export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (isUnreadable(value)) return "an unreadable value";
  return isList(value) ? "an array" : typeof value;
}
