import type { TSchema } from "@sinclair/typebox";
import { fieldErrors, type LazyTypeCheck, lazyTypeCheck } from "./lazy-type-check.js";
import { RUNTIME_WARNING_CODES, type RuntimeWarningPayload } from "./runtime-warning.js";
import { RuntimeWarningPayloadSchema } from "./runtime-event-schema.js";
import { UNREADABLE_VALUE_ERROR, readingUntrusted, shownField } from "./unreadable-values.js";

/** One checker per member of the warning union, so errors name the fields of the warning's own code. */
const memberCheckers: readonly LazyTypeCheck<TSchema>[] = RuntimeWarningPayloadSchema.anyOf.map((member) =>
  lazyTypeCheck(member),
);

/** The literal values a `code` schema accepts (a literal, or a union of them). */
function literals(schema: TSchema): unknown[] {
  if ("const" in schema) return [schema.const];
  return Array.isArray(schema.anyOf) ? schema.anyOf.flatMap(literals) : [];
}

/** Which member of the union each warning code belongs to. */
const MEMBER_OF_CODE = new Map<unknown, number>(
  RuntimeWarningPayloadSchema.anyOf.flatMap((member, index) =>
    literals(member.properties.code).map((code): [unknown, number] => [code, index]),
  ),
);

/** The result of {@link validateRuntimeWarning}. */
export type RuntimeWarningValidation = { ok: true; warning: RuntimeWarningPayload } | { ok: false; errors: string[] };

/**
 * Validates an untrusted value as a `runtime.warning` payload (a warning a
 * host hands a turn to emit). Never throws; on failure `errors` lists
 * readable `/path: problem` lines, one per field, checked against the
 * fields its `code` needs (an unknown `code` is one error naming it).
 */
export function validateRuntimeWarning(value: unknown): RuntimeWarningValidation {
  return readingUntrusted(() => validateWarning(value), { ok: false, errors: [UNREADABLE_VALUE_ERROR] });
}

function validateWarning(value: unknown): RuntimeWarningValidation {
  const code = typeof value === "object" && value !== null ? (value as { code?: unknown }).code : undefined;
  if (typeof code !== "string" || !MEMBER_OF_CODE.has(code)) {
    const got = value === null ? "null" : typeof value === "object" ? shownField(code) : typeof value;
    return { ok: false, errors: [`/code: expected one of ${RUNTIME_WARNING_CODES.join(", ")}, got ${got}`] };
  }
  // The member whose `code` accepts this one: its errors are about this warning's own fields.
  const checker = memberCheckers[MEMBER_OF_CODE.get(code)!]!;
  if (checker.check(value)) return { ok: true, warning: value as RuntimeWarningPayload };
  return { ok: false, errors: fieldErrors(checker, value, "/: not a valid runtime.warning payload") };
}
