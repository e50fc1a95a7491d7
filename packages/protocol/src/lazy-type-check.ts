import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";

/**
 * A TypeBox checker compiled on first use and reused afterwards. Compiling
 * costs far more than checking, and modules that are imported but never
 * validate anything should not pay for it. Internal to this package.
 */
export interface LazyTypeCheck<T extends TSchema> {
  /** True when `value` matches the schema. */
  check(value: unknown): value is Static<T>;
  /** Readable errors (`/path: message`), the first {@link MAX_SCHEMA_ERRORS} of them, empty when `value` matches. */
  errors(value: unknown): string[];
}

/** How many schema errors a check reports at most. */
const MAX_SCHEMA_ERRORS = 50;

/** Wraps `schema` in a {@link LazyTypeCheck}; nothing is compiled until the first call. */
export function lazyTypeCheck<T extends TSchema>(schema: T): LazyTypeCheck<T> {
  let compiled: TypeCheck<T> | undefined;
  const compile = (): TypeCheck<T> => (compiled ??= TypeCompiler.Compile(schema));
  return {
    check: (value): value is Static<T> => compile().Check(value),
    errors: (value) => {
      const errors: string[] = [];
      // The checker reports errors one by one: a list of length 2^32 - 1 whose entries are holes has billions.
      for (const error of compile().Errors(value)) {
        errors.push(`${error.path || "/"}: ${error.message}`);
        if (errors.length === MAX_SCHEMA_ERRORS) break;
      }
      return errors;
    },
  };
}

/**
 * The checker's errors for `value`, one line per field (TypeBox reports a
 * missing field twice: required, then of the wrong type), or `[fallback]`
 * when it gives none.
 */
export function fieldErrors(checker: LazyTypeCheck<TSchema>, value: unknown, fallback: string): string[] {
  const byPath = new Map<string, string>();
  for (const error of checker.errors(value)) {
    const path = error.slice(0, error.indexOf(": "));
    if (!byPath.has(path)) byPath.set(path, error);
  }
  return byPath.size > 0 ? [...byPath.values()] : [fallback];
}
