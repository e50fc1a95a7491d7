/**
 * `value` itself when it is plain JSON already (strings, finite numbers,
 * booleans, null, arrays and plain objects of them, no cycle; an object
 * field may be `undefined`, which JSON leaves out), else a copy
 * of it that `JSON.stringify` accepts and reads back as it is:
 * what JSON would write for it, without its crashes. A cycle becomes
 * the string `"[Circular]"`, a value nested deeper than
 * 256 levels the string `"[Too deep]"` (JSON would run out
 * of stack, and a database may refuse it), a list longer than 2^24 entries
 * the string `"[Too long]"` (a list with a length of 2^32 - 1 and a few
 * entries, which JSON would write as billions of `null`s), a bigint its decimal string; as in JSON, a
 * non-finite number or a function, symbol or `undefined` in a list (or a
 * hole in it) becomes `null`, such a field is left out, and a value with
 * `toJSON` is replaced by what it returns. A field whose read throws (a
 * getter, a `toJSON`, a proxy whose keys cannot be listed) is left out too, and a `__proto__` key stays an own
 * field of the copy. Never throws; never changes `value`. Used for
 * everything of a runtime event that host code handed over (tool results
 * and their details, tool-call arguments, trace attributes), which events
 * carry as plain JSON by contract.
 */
export function jsonSafe(value: unknown): unknown {
  // Most values are a few numbers and strings, or a tool's plain result: they are checked, not copied.
  return isPlainJsonValue(value) ? value : copy(value, new Set(), 0);
}

/** How deep {@link jsonSafe} copies a value: what lies deeper becomes the string `"[Too deep]"`. */
const JSON_SAFE_MAX_DEPTH = 256;

/** The longest list {@link jsonSafe} copies: a longer one becomes the string `"[Too long]"`. */
export const JSON_SAFE_MAX_LIST_LENGTH = 2 ** 24;

/** True when `value` is plain JSON as {@link jsonSafe} defines it (then it hands `value` back as it is). Never throws. */
export function isPlainJsonValue(value: unknown): boolean {
  try {
    return isPlainJson(value, 0);
  } catch {
    // A getter that throws: the copy leaves that field out.
    return false;
  }
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
    if (value.length > JSON_SAFE_MAX_LIST_LENGTH) return false;
    // By index, not `for of`: a hole is `undefined`, which a list may not hold.
    for (let index = 0; index < value.length; index++) if (!isPlainJson(value[index], depth + 1)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    // An `undefined` field is plain: JSON leaves it out, as the copy would.
    if (field !== undefined && !isPlainJson(field, depth + 1)) return false;
  }
  return true;
}

function copy(value: unknown, open: Set<object>, depth: number): unknown {
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
  if (open.has(value)) return "[Circular]";
  if (depth >= JSON_SAFE_MAX_DEPTH) return "[Too deep]";
  try {
    if (Array.isArray(value) && value.length > JSON_SAFE_MAX_LIST_LENGTH) return "[Too long]";
    return copyObject(value, open, depth);
  } catch {
    // A proxy that cannot be listed or is revoked: left out, as a field whose read throws.
    open.delete(value);
    return undefined;
  }
}

function copyObject(value: object, open: Set<object>, depth: number): unknown {
  const toJSON = read(value, "toJSON");
  if (typeof toJSON === "function") {
    let replaced: unknown;
    try {
      replaced = toJSON.call(value);
    } catch {
      return undefined;
    }
    open.add(value);
    const result = copy(replaced, open, depth);
    open.delete(value);
    return result;
  }
  open.add(value);
  let result: unknown;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let index = 0; index < value.length; index++) items.push(copy(read(value, index), open, depth + 1) ?? null);
    result = items;
  } else {
    const fields: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const safe = copy(read(value, key), open, depth + 1);
      if (safe === undefined) continue;
      // Defined, not assigned: a `__proto__` key (JSON.parse makes one an own field) must stay a field.
      if (key === "__proto__")
        Object.defineProperty(fields, key, { value: safe, enumerable: true, writable: true, configurable: true });
      else fields[key] = safe;
    }
    result = fields;
  }
  open.delete(value);
  return result;
}

/** `value[key]`, or `undefined` when reading it throws (a getter). */
function read(value: object, key: string | number): unknown {
  try {
    return (value as Record<string | number, unknown>)[key];
  } catch {
    return undefined;
  }
}
