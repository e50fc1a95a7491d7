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
 * The fields `fields` of an options argument (already known to be an
 * object), each read once; a `TypeError` `fn: name.field could not be read:
 * ...` for one whose getter or proxy trap throws.
 */
export function readFields<Field extends string>(
  fn: string,
  name: string,
  value: object,
  fields: readonly Field[],
): Record<Field, unknown> {
  const read = {} as Record<Field, unknown>;
  for (const field of fields) {
    try {
      read[field] = (value as Record<string, unknown>)[field];
    } catch (error) {
      throw new TypeError(`${fn}: ${name}.${field} could not be read: ${thrownWords(error)}`, { cause: error });
    }
  }
  return read;
}

/** What was thrown, in words; never throws itself. */
function thrownWords(error: unknown): string {
  return readOr(() => (error instanceof Error ? String(error.message) : String(error)), "a value that cannot be read");
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
