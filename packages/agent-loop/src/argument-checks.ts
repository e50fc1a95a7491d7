/*
 * Checks of the arguments a caller hands a public function (a testing
 * helper, a call-stack building block). Each throws a `TypeError` that
 * names the function and the argument (`text: value must be a string, got
 * 5`), so a mistake fails where it is written instead of deep inside with
 * an engine error.
 */
import { describeValue, isRecord } from "./message-checks.js";

/**
 * Throws a `TypeError` (`where: name must be an object, got null`) unless
 * `options` is an object or `undefined`: an options argument left out, or
 * given as `undefined`, means no options; `null`, a number, a string or an
 * array is refused.
 */
export function assertOptionsArgument(
  options: unknown,
  where: string,
  name = "options",
): asserts options is Record<string, unknown> | undefined {
  if (options !== undefined && !isRecord(options)) {
    throw new TypeError(`${where}: ${name} must be an object, got ${describeValue(options)}`);
  }
}

/** Throws a `TypeError` (`where: name must be an object, got null`) unless `value` is an object that is no array. */
export function assertObjectArgument(value: unknown, where: string, name: string): void {
  if (!isRecord(value)) throw new TypeError(`${where}: ${name} must be an object, got ${describeValue(value)}`);
}

/** Throws a `TypeError` (`where: name must be a function, got 5`) unless `value` is a function. */
export function assertFunctionArgument(value: unknown, where: string, name: string): void {
  if (typeof value !== "function")
    throw new TypeError(`${where}: ${name} must be a function, got ${describeValue(value)}`);
}

/** Throws a `TypeError` (`where: name must be a string, got 5`) unless `value` is a string. */
export function assertStringArgument(value: unknown, where: string, name: string): asserts value is string {
  if (typeof value !== "string") throw new TypeError(`${where}: ${name} must be a string, got ${describeValue(value)}`);
}

/**
 * Throws a `TypeError` (`where: name must be an array of what, got null`)
 * unless `value` is an array; `what` names its items (`events`, `waits`).
 */
export function assertArrayArgument(
  value: unknown,
  where: string,
  name: string,
  what: string,
): asserts value is readonly unknown[] {
  if (!Array.isArray(value))
    throw new TypeError(`${where}: ${name} must be an array of ${what}, got ${describeValue(value)}`);
}

/** Throws a `TypeError` (`where: name must be a number, got "x"`) unless `value` is a number other than NaN. */
export function assertNumberArgument(value: unknown, where: string, name: string): asserts value is number {
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new TypeError(`${where}: ${name} must be a number, got ${describeValue(value)}`);
  }
}
