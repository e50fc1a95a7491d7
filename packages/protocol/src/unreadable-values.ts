/**
 * How the validators and guards of this package treat a value they cannot
 * read: a revoked proxy, a getter that throws, a field JSON cannot show.
 * Untrusted data arrives from a network or another package copy; a check
 * of it answers, it never throws. Internal to this package.
 */

/** The one error line of a value that could not be read. */
export const UNREADABLE_VALUE_ERROR = "/: the value could not be read (a revoked proxy or a getter that throws)";

/** What `read` answers about an untrusted value, or `unreadable` when reading it threw. */
export function readingUntrusted<T>(read: () => T, unreadable: T): T {
  try {
    return read();
  } catch {
    return unreadable;
  }
}

/** An untrusted field's value for an error line: its JSON, else (a bigint, a cycle, `undefined`) its type. Never throws. */
export function shownField(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // No JSON for it: its type says enough.
  }
  return value === undefined ? "undefined" : typeof value;
}
