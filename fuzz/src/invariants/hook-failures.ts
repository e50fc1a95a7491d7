/**
 * Invariant 27: a decision that cannot be read (a field behind a getter
 * or a proxy trap that throws, as the scenario's `unreadable` decisions
 * have) is the hook's failure: when the outcome carries its text, the code
 * is `hook` and the message names the hook first and then the field that
 * could not be read, never the provider's failure.
 */
import type { TurnOutcome } from "@turnkit/protocol";
import { type LlmDecisionNote, UNREADABLE_DECISION_TEXT } from "../scenario-turn-hooks.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "27 an unreadable decision is its hook's failure";

/** How a failure names a field that could not be read, after the hook's name. */
const NAMES_THE_FIELD =
  /^(beforeLlmCallHook|afterLlmCallHook) returned a decision that could not be read: [\w.[\]]+ could not be read: /;

/** The LLM hooks' decisions that end the turn there (fail closed): the first of them is what a `hook` failure reports. */
const ENDS_THE_TURN = new Set(["throw", "invalid", "malformed", "unreadable", "revoked", "abort", "fail"]);

/**
 * Throws when `outcome` reports an unreadable decision as anything but its
 * hook's failure naming the field: when its text is carried, and when the
 * first decision of the LLM hooks that ends the turn (`decisions`, in the
 * order handed out) was an unreadable one and the outcome is that hook's
 * failure (not "respond without text", as if the field were missing).
 */
export function checkUnreadableDecisions(outcome: TurnOutcome, decisions: readonly LlmDecisionNote[]): void {
  if (outcome.kind !== "failed") return;
  const { code, message } = outcome.error;
  if (message.includes(UNREADABLE_DECISION_TEXT) && (code !== "hook" || !NAMES_THE_FIELD.test(message)))
    throw new InvariantViolation(INVARIANT, `the turn failed with ${JSON.stringify(outcome.error)}`);
  const first = decisions.find((note) => ENDS_THE_TURN.has(note.decision));
  if (
    first?.decision === "unreadable" &&
    code === "hook" &&
    message.startsWith(`${first.hook} `) &&
    !NAMES_THE_FIELD.test(message)
  )
    throw new InvariantViolation(
      INVARIANT,
      `${first.hook} handed out an unreadable decision, yet the turn failed with ${JSON.stringify(outcome.error)}`,
    );
}
