/**
 * A copy of `value` that `JSON.stringify` accepts and reads back as it is:
 * what JSON would write for it, without its two crashes. A cycle becomes
 * the string `"[Circular]"`, a bigint its decimal string; as in JSON, a
 * non-finite number or a function, symbol or `undefined` in a list becomes
 * `null`, such a field is left out, and a value with `toJSON` is replaced by
 * what it returns. Used for `debug.trace` attributes, which may carry what
 * host code handed over (a tool's partial result) and are JSON-safe by
 * contract.
 */
export function jsonSafe(value: unknown): unknown {
  return copy(value, new Set());
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
