import type { TurnOutcome } from "@turnkit/protocol";
import { classifyError, getAttachedClassifiedError } from "../call-stack/classify-error.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * The turn's one outcome, a fresh object each call. In order: the caller aborted → `aborted`; a
 * recorded failure (hook, writer, history, host allocator) → `failed` with
 * it; the last response ended with an error → `failed` with its classified
 * error; the last response was aborted → `aborted`; else `completed`.
 */
export function decideOutcome(turn: RunningTurn): TurnOutcome {
  if (turn.input.signal?.aborted) return { kind: "aborted" };
  if (turn.failure) return { kind: "failed", message: turn.failure.message, error: turn.failure };
  const messages = turn.agent.state.messages;
  const last = messages[messages.length - 1];
  if (last?.role === "assistant" && last.stopReason === "error") {
    const classified = getAttachedClassifiedError(last) ?? classifyError(last);
    const error = { code: classified.code, message: classified.message };
    return { kind: "failed", message: error.message, error };
  }
  if (last?.role === "assistant" && last.stopReason === "aborted") return { kind: "aborted" };
  return { kind: "completed" };
}
