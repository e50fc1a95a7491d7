import type { ActionRequiredPayload } from "./action-required.js";
import { lazyTypeCheck } from "./lazy-type-check.js";
import { ElicitationRequiredPayloadSchema, ToolApprovalRequiredPayloadSchema } from "./runtime-event-schema.js";

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
  const kind = typeof value === "object" && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== "tool_approval" && kind !== "elicitation") {
    const got =
      value === null ? "null" : typeof value === "object" ? (JSON.stringify(kind) ?? "undefined") : typeof value;
    return { ok: false, errors: [`/kind: expected "tool_approval" or "elicitation", got ${got}`] };
  }
  const checker = checkers[kind];
  if (checker.check(value)) return { ok: true, payload: value };
  // One line per field: TypeBox reports a missing field twice (required, then of the wrong type).
  const byPath = new Map<string, string>();
  for (const error of checker.errors(value)) {
    const path = error.slice(0, error.indexOf(": "));
    if (!byPath.has(path)) byPath.set(path, error);
  }
  const errors = [...byPath.values()];
  return { ok: false, errors: errors.length > 0 ? errors : ["/: not a valid action.required payload"] };
}
