import type { ActionAnswer, ActionRequiredKind } from "./action-required.js";
import { lazyTypeCheck } from "./lazy-type-check.js";
import { ElicitationAnswerSchema, ToolApprovalAnswerSchema } from "./runtime-event-schema.js";
import { UNREADABLE_VALUE_ERROR, readingUntrusted, shownField } from "./unreadable-values.js";

const checkers = {
  tool_approval: lazyTypeCheck(ToolApprovalAnswerSchema),
  elicitation: lazyTypeCheck(ElicitationAnswerSchema),
} satisfies Record<ActionRequiredKind, unknown>;

/** The result of {@link validateActionAnswer}. */
export type ActionAnswerValidation<K extends ActionRequiredKind> =
  | { ok: true; answer: ActionAnswer<K> }
  | { ok: false; errors: string[] };

/**
 * Validates an untrusted value as the answer to an `action.required` of
 * kind `kind` (a person's answer arriving from a UI or over the network).
 * Never throws; on failure `errors` lists readable `/path: problem` lines.
 * It checks the shape only: whether accepted content matches the question's
 * `requestedSchema` is the asker's to check.
 */
export function validateActionAnswer<K extends ActionRequiredKind>(kind: K, value: unknown): ActionAnswerValidation<K> {
  return readingUntrusted(() => validateAnswer(kind, value), { ok: false, errors: [UNREADABLE_VALUE_ERROR] });
}

function validateAnswer<K extends ActionRequiredKind>(kind: K, value: unknown): ActionAnswerValidation<K> {
  // Own keys only: a kind such as "constructor" names no checker.
  const checker = typeof kind === "string" && Object.hasOwn(checkers, kind) ? checkers[kind] : undefined;
  if (checker === undefined) return { ok: false, errors: [`/: no answer exists for kind ${shownField(kind)}`] };
  if (checker.check(value)) return { ok: true, answer: value as ActionAnswer<K> };
  const errors = checker.errors(value);
  return { ok: false, errors: errors.length > 0 ? errors : ["/: not a valid answer"] };
}
