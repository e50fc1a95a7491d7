import { ErrorCode, type TurnOutcome } from "@turnkit/protocol";
import { classifyError, getAttachedClassifiedError } from "../call-stack/classify-error.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * The turn's one outcome, a fresh object each call. In order: the caller aborted → `aborted`; a
 * recorded failure (hook, writer, history, host allocator) → `failed` with
 * it; the last response ended with an error → `failed` with its classified
 * error; the last response was aborted although the caller never aborted
 * (only the caller's signal and a recorded failure abort the Agent, so the
 * provider ended it so by itself) → `failed` with code `upstream`, since
 * `aborted` means the caller's signal fired; else `completed`.
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
  if (last?.role === "assistant" && last.stopReason === "aborted") {
    const reported = typeof last.errorMessage === "string" && last.errorMessage !== "" ? `: ${last.errorMessage}` : "";
    const error = {
      code: ErrorCode.Upstream,
      message: `The model's response ended as aborted, but the turn was not aborted${reported}`,
    };
    return { kind: "failed", message: error.message, error };
  }
  return { kind: "completed" };
}
