/* Checks of a public entry's own arguments: a `TypeError` naming the function and the argument. */

/** `null`, or the type of what was given (`an unreadable value` for a revoked proxy), for an error message. */
export function shownType(value: unknown): string {
  if (value === null) return "null";
  const list = listOrUnreadable(value);
  return list === "unreadable" ? "an unreadable value" : list ? "an array" : typeof value;
}

/** Throws a `TypeError` `fn: name must be an object, got ...` unless `value` is an object that is no array. */
export function assertOptionsObject(fn: string, name: string, value: unknown): void {
  if (typeof value !== "object" || value === null || listOrUnreadable(value) !== false)
    throw new TypeError(`${fn}: ${name} must be an object, got ${shownType(value)}`);
}

/**
 * What `read` answers, or `fallback` for what no code can read (a revoked proxy, a getter that
 * throws): `fallback`, never the engine's error.
 */
export function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** Whether `value` is a list; `unreadable` for a revoked proxy, of which not even that can be read. */
function listOrUnreadable(value: unknown): boolean | "unreadable" {
  return readOr<boolean | "unreadable">(() => Array.isArray(value), "unreadable");
}
