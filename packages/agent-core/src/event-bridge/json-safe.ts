/**
 * `value` itself when it is plain JSON already (strings, finite numbers,
 * booleans, null, arrays and plain objects of them, no cycle), else a copy
 * of it that `JSON.stringify` accepts and reads back as it is:
 * what JSON would write for it, without its two crashes. A cycle becomes
 * the string `"[Circular]"`, a bigint its decimal string; as in JSON, a
 * non-finite number or a function, symbol or `undefined` in a list becomes
 * `null`, such a field is left out, and a value with `toJSON` is replaced by
 * what it returns. Used for `debug.trace` attributes, which may carry what
 * host code handed over (a tool's partial result) and are JSON-safe by
 * contract.
 */
export function jsonSafe(value: unknown): unknown {
  // Most attributes are a few numbers and strings the runner built: they are checked, not copied.
  return isPlainJson(value, 0) ? value : copy(value, new Set());
}

/** Deeper than this, a value is copied (the copy finds cycles; the check does not look for them). */
const PLAIN_DEPTH = 16;

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) {
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function copy(value: unknown, open: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function")
    return copy((value as { toJSON: () => unknown }).toJSON(), open);
  if (open.has(value)) return "[Circular]";
  open.add(value);
  let result: unknown;
  if (Array.isArray(value)) {
    result = value.map((item) => copy(item, open) ?? null);
  } else {
    const fields: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const safe = copy(field, open);
      if (safe !== undefined) fields[key] = safe;
    }
    result = fields;
  }
  open.delete(value);
  return result;
}
