/**
 * Invariant 21: whatever a tool throws stays that call's error result. A
 * thrown value whose text cannot be read (no Error, a `toString` that
 * throws, as the scenario tools' `unreadable` throw is) must not end the
 * run: neither the Agent's run (an `error` response carrying the text of
 * that failure) nor the turn (a failed outcome naming it).
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import type { TurnOutcome } from "@turnkit/protocol";
import { UNREADABLE_THROW_TEXT } from "../scenario-tools.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "21 a tool's throw stays its call's error result";

/** Throws when a run of `transcript` ended on the failure an unreadable thrown value caused, or `outcome` names it. */
export function checkToolThrowsStayInTheirCall(transcript: readonly AgentMessage[], outcome?: TurnOutcome): void {
  for (const message of transcript) {
    if (message.role === "assistant" && message.errorMessage?.includes(UNREADABLE_THROW_TEXT))
      throw new InvariantViolation(INVARIANT, `the run ended with "${message.errorMessage}"`);
  }
  if (outcome?.kind === "failed" && outcome.error.message.includes(UNREADABLE_THROW_TEXT))
    throw new InvariantViolation(INVARIANT, `the turn failed with "${outcome.error.message}"`);
}
