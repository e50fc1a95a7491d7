/* Checks of a public entry's own arguments: a `TypeError` naming the function and the argument. */

/** `null`, or the type of what was given, for an error message. */
export function shownType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/** Throws a `TypeError` `fn: name must be an object, got ...` unless `value` is an object that is no array. */
export function assertOptionsObject(fn: string, name: string, value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(`${fn}: ${name} must be an object, got ${shownType(value)}`);
}
