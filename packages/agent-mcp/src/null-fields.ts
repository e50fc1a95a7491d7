/**
 * `value` without its fields that are null, other than those named in
 * `kept`; anything that is not a plain object is returned as it is.
 * Servers written in languages whose absent value is written as null
 * (Python's `None`) send optional fields so, where the protocol's schema
 * takes only an absent field.
 */
export function withoutNullFields(value: unknown, kept: readonly string[] = []): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key, field]) => field !== null || kept.includes(key)));
}
