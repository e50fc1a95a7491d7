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
  /** Readable errors (`/path: message`), empty when `value` matches. */
  errors(value: unknown): string[];
}

/** Wraps `schema` in a {@link LazyTypeCheck}; nothing is compiled until the first call. */
export function lazyTypeCheck<T extends TSchema>(schema: T): LazyTypeCheck<T> {
  let compiled: TypeCheck<T> | undefined;
  const compile = (): TypeCheck<T> => (compiled ??= TypeCompiler.Compile(schema));
  return {
    check: (value): value is Static<T> => compile().Check(value),
    errors: (value) => [...compile().Errors(value)].map((error) => `${error.path || "/"}: ${error.message}`),
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
