/**
 * Invariant 27: a decision that cannot be read (a getter that throws, as
 * the scenario's `unreadable` decision's `type` does) is the hook's failure:
 * when the outcome carries its text, the code is `hook` and the message
 * names the hook first, never the provider's failure.
 */
import type { TurnOutcome } from "@turnkit/protocol";
import { UNREADABLE_DECISION_TEXT } from "../scenario-turn-hooks.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "27 an unreadable decision is its hook's failure";

/** Throws when `outcome` reports an unreadable decision as anything but its hook's failure. */
export function checkUnreadableDecisions(outcome: TurnOutcome): void {
  if (outcome.kind !== "failed" || !outcome.error.message.includes(UNREADABLE_DECISION_TEXT)) return;
  const named = /^(beforeLlmCallHook|afterLlmCallHook) /.test(outcome.error.message);
  if (outcome.error.code !== "hook" || !named)
    throw new InvariantViolation(INVARIANT, `the turn failed with ${JSON.stringify(outcome.error)}`);
}
