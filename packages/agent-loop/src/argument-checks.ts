/*
 * Checks of the arguments a caller hands a public function (a testing
 * helper, a call-stack building block). Each throws a `TypeError` that
 * names the function and the argument (`text: value must be a string, got
 * 5`), so a mistake fails where it is written instead of deep inside with
 * an engine error.
 */
import { describeValue, isList, isRecord } from "./message-checks.js";
import { thrownText } from "./synthetic-messages.js";

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
  if (!isList(value)) throw new TypeError(`${where}: ${name} must be an array of ${what}, got ${describeValue(value)}`);
}

/** Throws a `TypeError` (`where: name must be a number, got "x"`) unless `value` is a number other than NaN. */
export function assertNumberArgument(value: unknown, where: string, name: string): asserts value is number {
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new TypeError(`${where}: ${name} must be a number, got ${describeValue(value)}`);
  }
}

/**
 * The fields `fields` of an options argument, each read once, as a plain
 * record. Throws a `TypeError` naming the function and the argument unless
 * `options` is an object that is no array (`where: name must be an object,
 * got null`; a revoked proxy is none), and one naming the field when
 * reading it throws (`where: name.message could not be read: ...`): a
 * getter or proxy trap that fails is said in words, never passed on.
 */
export function readArgumentFields<Field extends string>(
  options: unknown,
  where: string,
  name: string,
  fields: readonly Field[],
): Record<Field, unknown> {
  if (!isRecord(options)) throw new TypeError(`${where}: ${name} must be an object, got ${describeValue(options)}`);
  const read = {} as Record<Field, unknown>;
  for (const field of fields) {
    try {
      read[field] = options[field];
    } catch (error) {
      throw new TypeError(`${where}: ${name}.${field} could not be read: ${thrownText(error)}`, { cause: error });
    }
  }
  return read;
}

/**
 * Throws a `TypeError` (`where: name must be one of "a", "b", got 5`)
 * unless `value` is one of `allowed` (a closed set of codes or kinds).
 */
export function assertOneOfArgument<Value extends string>(
  value: unknown,
  allowed: readonly Value[],
  where: string,
  name: string,
): asserts value is Value {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    const choices = allowed.map((choice) => JSON.stringify(choice)).join(", ");
    throw new TypeError(`${where}: ${name} must be one of ${choices}, got ${describeValue(value)}`);
  }
}

/**
 * The `cause` of an error constructor's optional `{ cause }` argument, read
 * once: `undefined` when `options` is; a `TypeError` naming the argument
 * when it is no object (`null` included) or its `cause` cannot be read.
 */
export function readCauseArgument(options: unknown, where: string): unknown {
  return options === undefined ? undefined : readArgumentFields(options, where, "options", ["cause"]).cause;
}

/** What an error passes to `Error` for `cause`: no options when there is none, so nothing of the caller's is read again. */
export function errorOptionsOf(cause: unknown): { cause: unknown } | undefined {
  return cause === undefined ? undefined : { cause };
}
