/**
 * Whether `value` is an object whose `marker` property is `true`: how the
 * project's error classes recognise their instances across copies of a
 * package (`isInstance`). False, never a throw, for a value that cannot be
 * read (a revoked proxy, a getter that throws): a guard in a host's
 * `catch` must not fail on what it was thrown.
 */
export function hasBrand(value: unknown, marker: symbol): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (value as Record<symbol, unknown>)[marker] === true;
  } catch {
    return false;
  }
}
