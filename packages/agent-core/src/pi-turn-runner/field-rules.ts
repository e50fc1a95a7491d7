import { type ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { checkReadable } from "../input-reading.js";
import { assertKnownKeys } from "../known-keys.js";
import { describeValue } from "../messages/content-checks.js";

/**
 * What the value of one options field must be when it is set: `checked`
 * (another check looks at it more closely), a type, a hook (a function or
 * an array of functions), an `AbortSignal`, a clock (`now`, `setTimeout`,
 * `clearTimeout`), a positive integer, `false` or an object, or one of a
 * list of strings.
 */
export type FieldRule =
  | "checked"
  | "string"
  | "boolean"
  | "function"
  | "array"
  | "object"
  | "hook"
  | "signal"
  | "clock"
  | "positive integer"
  | "false or object"
  | readonly string[];

/**
 * Checks each own key of `value` (when it is a plain object) against
 * `rules`: a key not there is an `unknown_key` `TurnkitConfigError` naming
 * it and the nearest valid key; a value that breaks its rule is one with
 * `code`, saying `<where>.<key> must be ..., got ...` (a value that cannot
 * be read, such as a revoked proxy, breaks every rule). `undefined` counts
 * as not set. An object whose fields cannot be read (a revoked proxy, a
 * getter that throws) is one with `code` saying `<where> could not be
 * read` (see `checkReadable`).
 */
export function checkFields(
  value: unknown,
  rules: Record<string, FieldRule>,
  where: string,
  code: ConfigErrorCode,
): void {
  const entries = checkReadable(where, code, () =>
    typeof value !== "object" || value === null || Array.isArray(value) ? [] : Object.entries(value),
  );
  for (const [key, field] of entries) {
    if (!Object.hasOwn(rules, key)) assertKnownKeys(value as object, Object.keys(rules), where);
    const rule = rules[key]!;
    if (field === undefined || rule === "checked" || fitsReadable(rule, field)) continue;
    throw new TurnkitConfigError(code, `${where}.${key} must be ${describeRule(rule)}, got ${describeValue(field)}`);
  }
}

/** Whether `value` keeps `rule`; a value that cannot be read keeps none. */
function fitsReadable(rule: Exclude<FieldRule, "checked">, value: unknown): boolean {
  try {
    return fits(rule, value);
  } catch {
    return false;
  }
}

function fits(rule: Exclude<FieldRule, "checked">, value: unknown): boolean {
  if (Array.isArray(rule)) return rule.includes(value as string);
  switch (rule) {
    case "string":
    case "boolean":
    case "function":
      return typeof value === rule;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "hook":
      return typeof value === "function" || (Array.isArray(value) && isFunctionList(value));
    case "signal":
      return value instanceof AbortSignal;
    case "clock": {
      const clock = value as Record<string, unknown> | null;
      return (
        typeof clock === "object" &&
        clock !== null &&
        typeof clock.now === "function" &&
        typeof clock.setTimeout === "function" &&
        typeof clock.clearTimeout === "function"
      );
    }
    case "positive integer":
      return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
    case "false or object":
      return value === false || (typeof value === "object" && value !== null && !Array.isArray(value));
  }
  return false;
}

/** Every entry a function; a hole is an `undefined` entry. Stops at the first other entry (a list with a length of 2^32 - 1 and nothing in it is refused at once). */
function isFunctionList(list: readonly unknown[]): boolean {
  for (let index = 0; index < list.length; index++) if (typeof list[index] !== "function") return false;
  return true;
}

function describeRule(rule: Exclude<FieldRule, "checked">): string {
  if (Array.isArray(rule)) return `one of ${rule.map((option) => `"${option}"`).join(", ")}`;
  switch (rule) {
    case "string":
    case "boolean":
    case "function":
    case "array":
    case "object":
      return `${rule === "array" || rule === "object" ? "an" : "a"} ${rule}`;
    case "hook":
      return "a function or an array of functions";
    case "signal":
      return "an AbortSignal";
    case "clock":
      return "a Clock { now, setTimeout, clearTimeout }";
    case "positive integer":
      return "a positive integer";
    case "false or object":
      return "false or an object";
  }
  return String(rule);
}
