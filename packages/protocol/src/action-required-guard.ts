import type { ActionRequiredPayload } from "./action-required.js";
import { fieldErrors, lazyTypeCheck } from "./lazy-type-check.js";
import { ElicitationRequiredPayloadSchema, ToolApprovalRequiredPayloadSchema } from "./runtime-event-schema.js";
import { UNREADABLE_VALUE_ERROR, readingUntrusted, shownField } from "./unreadable-values.js";

const checkers = {
  tool_approval: lazyTypeCheck(ToolApprovalRequiredPayloadSchema),
  elicitation: lazyTypeCheck(ElicitationRequiredPayloadSchema),
};

/** The result of {@link validateActionRequired}. */
export type ActionRequiredValidation = { ok: true; payload: ActionRequiredPayload } | { ok: false; errors: string[] };

/**
 * Validates an untrusted value as an `action.required` payload (a question
 * that code inside a turn built, before it is emitted and put to a person).
 * Never throws; on failure `errors` lists readable `/path: problem` lines,
 * one per field, checked against the schema of the value's `kind` (an unknown `kind` is
 * one error naming it).
 */
export function validateActionRequired(value: unknown): ActionRequiredValidation {
  return readingUntrusted(() => validatePayload(value), { ok: false, errors: [UNREADABLE_VALUE_ERROR] });
}

function validatePayload(value: unknown): ActionRequiredValidation {
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== "tool_approval" && kind !== "elicitation") {
    const got = value === null ? "null" : typeof value === "object" ? shownField(kind) : typeof value;
    return { ok: false, errors: [`/kind: expected "tool_approval" or "elicitation", got ${got}`] };
  }
  const checker = checkers[kind];
  if (checker.check(value)) return { ok: true, payload: value };
  return { ok: false, errors: fieldErrors(checker, value, "/: not a valid action.required payload") };
}
