/*
 * Checks of a public function's own arguments, before it reads them: a
 * `TypeError` naming the function and the argument (`withLlmRetry: options
 * must be an object, got null`) instead of an engine error from deep inside.
 */
import { describeValue } from "@turnkit/agent-loop/internal";

/** Throws `fn: name must be an object, got ...` unless `value` is an object that is no array. */
export function assertObjectArgument(fn: string, name: string, value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(`${fn}: ${name} must be an object, got ${describeValue(value)}`);
}

/** Throws `fn: name must be a function, got ...` unless `value` is a function. */
export function assertFunctionArgument(fn: string, name: string, value: unknown): void {
  if (typeof value !== "function")
    throw new TypeError(`${fn}: ${name} must be a function, got ${describeValue(value)}`);
}
