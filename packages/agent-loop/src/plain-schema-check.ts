import { Compile } from "typebox/compile";
import { withResolvableRefs } from "./schema-refs.js";

/** Checks raw arguments against a schema; `true`: they are valid as the model sent them. */
export type PlainSchemaCheck = (value: unknown) => boolean;

/** How the arguments of a tool with a plain JSON Schema are validated (see {@link plainSchema}). */
export interface PlainSchema {
  /** The schema arguments are validated against: the tool's own, or its copy without references that resolve to nothing. */
  readonly schema: object;
  /** The compiled check of {@link schema}; `undefined` when the compiler rejects it. */
  readonly check: PlainSchemaCheck | undefined;
}

/** One entry per schema object, so a schema dropped by the host is collected with its checker. */
const prepared = new WeakMap<object, PlainSchema>();

/**
 * How to validate arguments for a tool schema that is no `@sinclair/typebox`
 * 0.34 schema (plain JSON Schema, as MCP servers declare tools, or pi-ai's
 * `Type`), worked out once per schema object. Its `schema` is the tool's
 * own, except that a reference resolving to nothing (another document, a
 * missing pointer or anchor; see `withResolvableRefs`) is left out, so it
 * allows anything instead of failing every call. Its `check` is compiled
 * with the compiler pi-ai's validator uses (`typebox` 1.x): arguments that
 * pass it are valid as sent and are used unchanged (as a copy); only
 * arguments that fail it go through pi-ai's coercing validator (with the
 * same `schema`). `undefined` for a value that is no object.
 */
export function plainSchema(schema: unknown): PlainSchema | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  let found = prepared.get(schema);
  if (found === undefined) {
    const validated = withResolvableRefs(schema);
    let check: PlainSchemaCheck | undefined;
    try {
      const validator = Compile(validated as never);
      check = (value) => validator.Check(value);
    } catch {
      check = undefined;
    }
    found = { schema: validated, check };
    prepared.set(schema, found);
  }
  return found;
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
