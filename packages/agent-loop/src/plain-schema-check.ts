import { Compile } from "typebox/compile";

/** Checks raw arguments against a schema; `true` means pi-ai's validator would return them unchanged (as a copy). */
export type PlainSchemaCheck = (value: unknown) => boolean;

/** One entry per schema object, so a schema dropped by the host is collected with its checker; `null`: no shortcut. */
const checks = new WeakMap<object, PlainSchemaCheck | null>();

/** Property names an object has through its prototype: pi-ai's coercion (`key in value`) writes those onto the arguments. */
const inherited = (key: string) => key in {};

/**
 * Whether pi-ai 0.73's `validateToolArguments` leaves every valid value of
 * `schema` as it is. For a plain JSON Schema its only change is the
 * coercion it walks through `allOf`, `anyOf`, `oneOf`, `type`,
 * `properties`, `additionalProperties` and `items`: type coercion never
 * changes a value of the right type, but a union (`anyOf`, `oneOf`) may
 * coerce a valid value into another member's type, and a property whose
 * name an object inherits (`toString`, `__proto__`) is written onto the
 * arguments even when absent. Schemas with either are not plain.
 */
function keepsValidValues(schema: unknown, seen: Set<object>): boolean {
  if (typeof schema === "boolean") return true;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  if (seen.has(schema)) return false;
  seen.add(schema);
  const node = schema as Record<string, unknown>;
  if (node.anyOf !== undefined || node.oneOf !== undefined) return false;
  if (
    node.allOf !== undefined &&
    !(Array.isArray(node.allOf) && node.allOf.every((part) => keepsValidValues(part, seen)))
  )
    return false;
  const { properties, additionalProperties, items } = node;
  if (properties !== undefined && properties !== null && typeof properties === "object") {
    for (const [key, property] of Object.entries(properties))
      if (inherited(key) || !keepsValidValues(property, seen)) return false;
  }
  if (
    typeof additionalProperties === "object" &&
    additionalProperties !== null &&
    !keepsValidValues(additionalProperties, seen)
  )
    return false;
  if (Array.isArray(items)) return items.every((item) => keepsValidValues(item, seen));
  if (typeof items === "object" && items !== null) return keepsValidValues(items, seen);
  return true;
}

/**
 * A compiled check for a plain JSON Schema tool (no TypeBox marker), built
 * once per schema object with the same compiler pi-ai's validator uses
 * (`typebox` 1.x): when it passes, pi-ai's `validateToolArguments` would
 * return a copy of the arguments unchanged, so that copy can be returned
 * without its per-call work (a schema walk and a conversion per call).
 * `undefined` for schemas where that does not hold (see
 * `keepsValidValues`), TypeBox 1.x schemas (`~kind`, which pi-ai converts)
 * and schemas the compiler rejects: validate those with pi-ai's function.
 */
export function plainSchemaCheck(schema: unknown): PlainSchemaCheck | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  let check = checks.get(schema);
  if (check === undefined) {
    check = null;
    if (!("~kind" in schema) && keepsValidValues(schema, new Set())) {
      try {
        const validator = Compile(schema as never);
        check = (value) => validator.Check(value);
      } catch {
        check = null;
      }
    }
    checks.set(schema, check);
  }
  return check ?? undefined;
}

/** Deeper than this, {@link copyArguments} hands the value to `structuredClone` (cycles, pathological nesting). */
const MAX_PLAIN_DEPTH = 64;

/** The copy of a JSON-like value, or `undefined` when it is not one (another prototype, a function, too deep). */
function copyPlain(value: unknown, depth: number): { copy: unknown } | undefined {
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" || typeof value === "bigint"
      ? undefined
      : { copy: value };
  }
  if (depth > MAX_PLAIN_DEPTH) return undefined;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return undefined;
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return undefined;
      const item = copyPlain(value[index], depth + 1);
      if (!item) return undefined;
      copy[index] = item.copy;
    }
    return { copy };
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (!item) return undefined;
    // A "__proto__" key from the model stays an own data property, as structuredClone keeps it.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: item.copy, writable: true, enumerable: true, configurable: true });
    else copy[key] = item.copy;
  }
  return { copy };
}

/**
 * What `structuredClone(value)` returns for tool-call arguments, without its
 * serialisation round trip when they are plain JSON-like data (plain
 * objects, arrays without holes, primitives), as parsed model output is;
 * anything else goes through `structuredClone` itself.
 */
export function copyArguments<T>(value: T): T {
  const plain = copyPlain(value, 0);
  return plain ? (plain.copy as T) : structuredClone(value);
}
